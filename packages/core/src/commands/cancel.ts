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
  const argv = cancelScript.argv(
    { job: k.job(id), pending: k.pending, delayed: k.delayed, stats: k.stats, log: k.log },
    { id, ttlSeconds: ctx.options.cancelledTtlSeconds, channel: ctx.channel, prefix: k.prefix, logMaxLen: ctx.logMaxLen, jobPrefix: k.jobPrefix, worker: ctx.workerId },
  );
  const [code, status] = await ctx.scripts.run(cancelScript, argv);
  if (Number(code) === CANCELLED) return { cancelled: true };
  return { cancelled: false, status: status ? status : 'not_found' };
}
