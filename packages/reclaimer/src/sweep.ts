import type { Queue, QueueStats, WorkerInfo } from '@jobs/core';

/** What one sweep of one queue did. */
export interface SweepReport {
  readonly queue: string;
  /** Expired leases returned to pending. */
  readonly reclaimed: number;
  /** Expired leases on their last attempt, moved to failed. */
  readonly deadLettered: number;
  /** Ids found without a hash and dropped. */
  readonly dropped: number;
  /** Delayed jobs that came due and went to pending. */
  readonly promoted: number;
  /** Expired ids dropped from the histories. */
  readonly tidied: number;
  /** Parked jobs moved back because nothing holds their kind back any more (see `Queue.unparkFreed`). */
  readonly unparked: number;
  /** Script calls made; each handles at most `batch` jobs. */
  readonly calls: number;
  /** The largest number of jobs one call handled (never more than `batch`). */
  readonly largestCall: number;
  readonly durationMs: number;
  /** The queue's state after the sweep. */
  readonly stats: QueueStats;
  /**
   * The queue's live workers after the sweep, from their heartbeats (see `Queue.workers`); null
   * for a partition other than 0 of a partitioned queue swept too, whose registry holds them.
   */
  readonly workers: readonly WorkerInfo[] | null;
}

/** Limits of one sweep. */
export interface SweepLimits {
  /** Most jobs one script call handles: what bounds how long Redis is busy with one call. */
  batch: number;
  /** Most calls of each kind in one sweep: what bounds one sweep. The rest waits for the next. */
  maxCalls: number;
}

/**
 * One sweep of a queue, in bounded steps: promote due delayed jobs, return expired leases (or
 * dead-letter them on their last attempt), move back the parked jobs of kinds that are no longer
 * paused or limited (a resume or setLimits whose caller died), drop expired ids from the
 * histories, read the stats and the live workers.
 * Every step is an atomic script call of at most `batch` jobs, so any number of reclaimers can
 * sweep the same queue at once without handling a job twice, and none keeps Redis busy long.
 */
export async function sweepQueue(queue: Queue<unknown>, limits: SweepLimits, readWorkers = true): Promise<SweepReport> {
  const started = performance.now();
  let calls = 0;
  let largestCall = 0;
  let promoted = 0;
  for (let call = 0; call < limits.maxCalls; call += 1) {
    const result = await queue.promoteDue(limits.batch);
    calls += 1;
    promoted += result.promoted;
    largestCall = Math.max(largestCall, result.promoted);
    if (result.promoted < limits.batch) break;
  }
  let reclaimed = 0;
  let deadLettered = 0;
  let dropped = 0;
  for (let call = 0; call < limits.maxCalls; call += 1) {
    const result = await queue.reclaimStuck({ batch: limits.batch });
    calls += 1;
    reclaimed += result.reclaimed.length;
    deadLettered += result.deadLettered.length;
    dropped += result.dropped.length;
    largestCall = Math.max(largestCall, result.reclaimed.length + result.deadLettered.length);
    if (!result.more) break;
  }
  let unparked = 0;
  for (let call = 0; call < limits.maxCalls; call += 1) {
    const result = await queue.unparkFreed({ batch: limits.batch });
    calls += 1;
    unparked += result.unparked;
    largestCall = Math.max(largestCall, result.unparked);
    if (!result.more) break;
  }
  const tidy = await queue.tidyHistory(limits.batch);
  calls += 1;
  const stats = await queue.stats();
  const workers = readWorkers ? await queue.workers() : null;
  return {
    queue: queue.name,
    reclaimed,
    deadLettered,
    dropped,
    promoted,
    tidied: tidy.completed + tidy.failed,
    unparked,
    calls,
    largestCall,
    durationMs: performance.now() - started,
    stats,
    workers,
  };
}
