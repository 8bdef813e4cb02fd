import { failedHistoryCap } from '../queue-options.ts';
import { CLAIM_CANCELLED, HAND_OFF_DELAYED, HAND_OFF_FAILED, HAND_OFF_REPEATED } from '../generated/constants.ts';
import { handOffScript } from '../generated/hand-off.ts';
import type { ClaimedJob } from '../job-record.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/**
 * What {@link Partition.handOff} did: handed the job back to wait `delayMs` for a worker that
 * knows its kind (`liveWorkers` of them alive); failed it for good, its grace over; `repeated`
 * (a resend after a lost reply: the first call did it); or nothing, the claim being `cancelled`
 * or `lost`.
 */
export type HandOffOutcome =
  | { readonly outcome: 'delayed'; readonly delayMs: number; readonly liveWorkers: number }
  | { readonly outcome: 'failed' | 'repeated' | 'cancelled' | 'lost' };

/** The longest grace a job of an unknown kind may be given: 7 days, in ms. */
export const MAX_HAND_OFF_GRACE_MS = 7 * 86_400_000;

/** See {@link Partition.handOff}. */
export async function handOff<P>(ctx: QueueContext<P>, job: ClaimedJob, kind: string, graceMs: number, liveWorkers: number, known: readonly string[]): Promise<HandOffOutcome> {
  assertWholeNumber('graceMs', graceMs, 0, MAX_HAND_OFF_GRACE_MS);
  const k = ctx.keys;
  const o = ctx.options;
  const argv = handOffScript.argv(
    { job: k.job(job.id), processing: k.processing, delayed: k.delayed, leases: k.leases, stats: k.stats, log: k.log, pending: k.pending, failed: k.failed },
    {
      id: job.id,
      token: job.token,
      kind,
      graceMs,
      prefix: k.prefix,
      jobPrefix: k.jobPrefix,
      channel: ctx.channel,
      wakeChannel: k.wake,
      logMaxLen: ctx.logMaxLen,
      worker: ctx.workerId,
      attemptsKeep: o.attemptHistory.keep,
      failedTtlSeconds: o.failedTtlSeconds,
      historyCap: failedHistoryCap(o),
      known: known.join(', '),
      liveWorkers,
    },
  );
  const [code, delayMs, live] = (await ctx.scripts.run(handOffScript, argv)).map(Number) as [number, number, number];
  if (code === HAND_OFF_DELAYED) return { outcome: 'delayed', delayMs, liveWorkers: live };
  if (code === HAND_OFF_FAILED) return { outcome: 'failed' };
  if (code === HAND_OFF_REPEATED) return { outcome: 'repeated' };
  return { outcome: code === CLAIM_CANCELLED ? 'cancelled' : 'lost' };
}
