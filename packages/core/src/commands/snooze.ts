import { JobCancelledError, LostClaimError } from '../errors.ts';
import { CLAIM_CANCELLED, CLAIM_DONE } from '../generated/constants.ts';
import { snoozeScript } from '../generated/snooze.ts';
import type { ClaimedJob } from '../job-record.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** The longest a job may be snoozed for at once: 30 days, in ms. */
export const MAX_SNOOZE_MS = 30 * 86_400_000;

/** See {@link Partition.snooze}. */
export async function snooze<P>(ctx: QueueContext<P>, job: ClaimedJob, delayMs: number): Promise<void> {
  assertWholeNumber('delayMs', delayMs, 0, MAX_SNOOZE_MS);
  const k = ctx.keys;
  const argv = snoozeScript.argv(
    { job: k.job(job.id), processing: k.processing, delayed: k.delayed, leases: k.leases, stats: k.stats, log: k.log, pending: k.pending },
    {
      id: job.id,
      token: job.token,
      delayMs,
      prefix: k.prefix,
      jobPrefix: k.jobPrefix,
      channel: ctx.channel,
      wakeChannel: k.wake,
      logMaxLen: ctx.logMaxLen,
      worker: ctx.workerId,
      attemptsKeep: ctx.options.attemptHistory.keep,
    },
  );
  const code = Number(await ctx.scripts.run(snoozeScript, argv));
  if (code === CLAIM_CANCELLED) throw new JobCancelledError(job.id);
  if (code !== CLAIM_DONE) throw new LostClaimError(job.id, 'snooze');
}
