import { failedHistoryCap } from '../queue-options.ts';
import { cancelScript } from '../generated/cancel.ts';
import { CANCELLED } from '../generated/constants.ts';
import { assertJobId } from '../keys.ts';
import type { QueueContext } from './queue-context.ts';

/** What {@link JobQueue.cancel} did. */
export type CancelOutcome = { readonly cancelled: true } | { readonly cancelled: false; readonly status: string };

/** See {@link JobQueue.cancel}. */
export async function cancel<P>(ctx: QueueContext<P>, id: string): Promise<CancelOutcome> {
  assertJobId(id);
  const k = ctx.keys;
  const o = ctx.options;
  const argv = cancelScript.argv(
    { job: k.job(id), pending: k.pending, delayed: k.delayed, stats: k.stats, failed: k.failed, log: k.log },
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
    },
  );
  const [code, status] = await ctx.scripts.run(cancelScript, argv);
  if (Number(code) === CANCELLED) return { cancelled: true };
  return { cancelled: false, status: status ? status : 'not_found' };
}
