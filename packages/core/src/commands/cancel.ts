import { failedHistoryCap } from '../queue-options.ts';
import { cancelScript } from '../generated/cancel.ts';
import { CANCELLED } from '../generated/constants.ts';
import { assertJobId } from '../keys.ts';
import type { QueueContext } from './queue-context.ts';

/**
 * What {@link Queue.cancel} did: cancelled (`wasRunning` when a worker was running it), or not,
 * with the status that kept it (`completed`, `failed`, `cancelled`, `not_found`...).
 */
export type CancelOutcome = { readonly cancelled: true; readonly wasRunning: boolean } | { readonly cancelled: false; readonly status: string };

/** See {@link Queue.cancel}: on the one context that holds it, or (an id made elsewhere) each in turn until one has it. */
export async function cancel<P>(holders: readonly QueueContext<P>[], id: string): Promise<CancelOutcome> {
  if (holders.length === 1) return cancelIn(holders[0] as QueueContext<P>, id);
  let outcome: CancelOutcome = { cancelled: false, status: 'not_found' };
  for (const ctx of holders) {
    outcome = await cancelIn(ctx, id);
    if (outcome.cancelled || outcome.status !== 'not_found') return outcome;
  }
  return outcome;
}

async function cancelIn<P>(ctx: QueueContext<P>, id: string): Promise<CancelOutcome> {
  assertJobId(id);
  const k = ctx.keys;
  const o = ctx.options;
  const argv = cancelScript.argv(
    { job: k.job(id), pending: k.pending, delayed: k.delayed, stats: k.stats, failed: k.failed, log: k.log, processing: k.processing, leases: k.leases },
    {
      id,
      ttlSeconds: o.cancelledTtlSeconds,
      channel: ctx.channel,
      prefix: k.prefix,
      jobPrefix: k.jobPrefix,
      failedTtlSeconds: o.failedTtlSeconds,
      historyCap: failedHistoryCap(o),
      wakeChannel: k.wake,
      logMaxLen: ctx.logMaxLen,
      worker: ctx.workerId,
      controlChannel: k.control,
      attemptsKeep: o.attemptHistory.keep,
    },
  );
  const [code, status] = await ctx.scripts.run(cancelScript, argv);
  if (Number(code) === CANCELLED) return { cancelled: true, wasRunning: status === 'processing' };
  return { cancelled: false, status: status ? status : 'not_found' };
}
