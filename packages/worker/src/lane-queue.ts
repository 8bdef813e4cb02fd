import type { ChildResult, ClaimedJob, CompleteAndClaimResult, FailOutcome, Kinds, ReclaimResult } from '@jobs/core';

/**
 * What the worker's scheduling needs from one queue (or one partition of a partitioned queue):
 * the claim source it takes work from and reports outcomes to. Each of a `Queue`'s `partitions`
 * is one; unit tests pass a fake, so the scheduling runs without Redis.
 */
export interface LaneQueue {
  /** The queue's (or partition's) name, for logs. */
  readonly name: string;
  /** The lease length a claim gives by default and the attempts a job gets by default. */
  readonly options: { readonly visibilityMs: number; readonly maxAttempts: number };
  /** Claims up to `max` jobs, waiting up to `blockMs` for work; resolves early when `signal` aborts. */
  claim(options: { max: number; blockMs: number; signal: AbortSignal }): Promise<ClaimedJob[]>;
  /** Resolves when pending may hold work, after about `timeoutMs` at most. Never rejects. */
  waitForWork(timeoutMs: number): Promise<void>;
  /** Completes `items` and claims up to `max` more in one step. */
  completeManyAndClaim(items: readonly { job: ClaimedJob; result: unknown }[], options: { max: number }): Promise<CompleteAndClaimResult>;
  /** Records a failed attempt: a retry, or a dead letter when `permanent` or out of attempts. */
  fail(job: ClaimedJob, error: unknown, options: { permanent: boolean }): Promise<FailOutcome>;
  /** A handler's pushback (RateLimitedError): the kind waits `retryAfterMs`, the job goes back without using an attempt. */
  rateLimited(job: ClaimedJob, retryAfterMs: number, reason?: string): Promise<number>;
  /** Renews the leases of `jobs` for `leaseMs`; per job the new deadline, or null when the claim was lost. */
  extendLeases(jobs: readonly ClaimedJob[], leaseMs: number): Promise<(number | null)[]>;
  /** Renews one lease; rejects with `JOBS_LOST_CLAIM` when the claim was lost. */
  extendLease(job: ClaimedJob, leaseMs: number): Promise<number>;
  /** Records a running job's progress; rejects with `JOBS_LOST_CLAIM` when the claim was lost. */
  progress(job: ClaimedJob, value: unknown): Promise<void>;
  /** A flow parent's children by id, with how each settled (for `ctx.children()`). */
  children(id: string): Promise<Record<string, ChildResult>>;
  /** Hands claimed jobs back to pending (per job, whether it still held the claim). */
  release(jobs: readonly ClaimedJob[]): Promise<boolean[]>;
  /** One bounded sweep for expired leases. */
  reclaimStuck(): Promise<ReclaimResult>;
  /** One bounded call moving back the parked jobs of kinds no longer paused or limited. */
  unparkFreed(): Promise<{ unparked: number; more: boolean }>;
}

/** The queue a worker serves: its lanes (one per partition) and what applies to all of them. */
export interface QueueGroup<P> {
  readonly kinds: Kinds<P>;
  /** One per partition; one for a plain queue. */
  readonly partitions: readonly LaneQueue[];
  /** Checks the partition count against the one Redis recorded; rejects on a mismatch. */
  ensureLayout(): Promise<void>;
  /** Closes the connections the group opened. */
  close(): Promise<void>;
}
