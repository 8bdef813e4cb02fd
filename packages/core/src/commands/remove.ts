import { REMOVED } from '../generated/constants.ts';
import { removeScript } from '../generated/remove.ts';
import { assertJobId } from '../keys.ts';
import { failedHistoryCap } from '../queue-options.ts';
import { randomHex } from '../random-hex.ts';
import { onFirstHolder } from './first-holder.ts';
import type { QueueContext } from './queue-context.ts';

/** What {@link Queue.remove} did: removed, or the status that kept the job (`processing`; `not_found` when there is none). */
export type RemoveOutcome = { readonly removed: true } | { readonly removed: false; readonly status: string };

/** See {@link Queue.remove}. */
export async function removeJob<P>(holders: readonly QueueContext<P>[], id: string): Promise<RemoveOutcome> {
  assertJobId(id);
  const request = randomHex();
  return onFirstHolder(holders, async (ctx): Promise<RemoveOutcome> => {
    const k = ctx.keys;
    const o = ctx.options;
    const argv = removeScript.argv(
      { job: k.job(id), pending: k.pending, delayed: k.delayed, completed: k.completed, failed: k.failed, stats: k.stats, log: k.log, removals: k.removals },
      {
        id,
        prefix: k.prefix,
        jobPrefix: k.jobPrefix,
        logMaxLen: ctx.logMaxLen,
        worker: ctx.workerId,
        request,
        ttlSeconds: o.cancelledTtlSeconds,
        channel: ctx.channel,
        failedTtlSeconds: o.failedTtlSeconds,
        historyCap: failedHistoryCap(o),
        wakeChannel: k.wake,
      },
    );
    const [code, status] = await ctx.scripts.run(removeScript, argv);
    return Number(code) === REMOVED ? { removed: true } : { removed: false, status: status || 'not_found' };
  });
}
