import { reclaimScript } from '../generated/reclaim.ts';
import { assertOptionKeys } from '../option-keys.ts';
import { failedHistoryCap } from '../queue-options.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** What {@link Queue.reclaimStuck} did. */
export interface ReclaimResult {
  /** Jobs whose lease expired, back on pending. */
  readonly reclaimed: readonly string[];
  /** Jobs whose lease expired on their last attempt, now in failed. */
  readonly deadLettered: readonly string[];
  /** Ids dropped from processing because their hash was gone. */
  readonly dropped: readonly string[];
  /** True when more leases had expired than one call handles: call again. */
  readonly more: boolean;
}

/** See {@link Queue.reclaimStuck}. */
export async function reclaimStuck<P>(ctx: QueueContext<P>, options: { batch?: number; scanBudget?: number } = {}): Promise<ReclaimResult> {
  assertOptionKeys<{ batch?: number; scanBudget?: number }>('options', options, { batch: true, scanBudget: true });
  const batch = assertWholeNumber('batch', options.batch ?? 500, 1, 100_000);
  const scanBudget = assertWholeNumber('scanBudget', options.scanBudget ?? 100, 0, 100_000);
  const k = ctx.keys;
  const o = ctx.options;
  const argv = reclaimScript.argv(
    { pending: k.pending, processing: k.processing, leases: k.leases, failed: k.failed, stats: k.stats, cursor: k.reclaimCursor, delayed: k.delayed, log: k.log },
    { jobPrefix: k.jobPrefix, batch, visibilityMs: o.visibilityMs, maxAttempts: o.maxAttempts, ttlSeconds: o.failedTtlSeconds, historyCap: failedHistoryCap(o), channel: ctx.channel, scanBudget, prefix: k.prefix, wakeChannel: k.wake, logMaxLen: ctx.logMaxLen, worker: ctx.workerId, attemptsKeep: o.attemptHistory.keep },
  );
  const [reclaimed, deadLettered, dropped, more] = await ctx.scripts.run(reclaimScript, argv);
  return { reclaimed, deadLettered, dropped, more: Number(more) === 1 };
}
