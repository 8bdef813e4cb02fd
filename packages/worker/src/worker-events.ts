import type { ClaimedJob, FailOutcome } from '@jobs/core';

/** The events a worker emits, each with one object argument. */
export interface WorkerEventMap {
  /** A handler returned and its result was stored. */
  completed: [event: { job: ClaimedJob; result: unknown; durationMs: number }];
  /** An attempt failed and the job will run again (`retry`: at once, `delayed`: after its backoff). */
  retrying: [event: { job: ClaimedJob; error: unknown; outcome: Exclude<FailOutcome, 'failed'> }];
  /**
   * A handler threw RateLimitedError: no worker claims the job's kind until `untilMs` (Redis
   * clock), and the job went back to the front of its list without using an attempt.
   */
  rateLimited: [event: { job: ClaimedJob; error: unknown; untilMs: number }];
  /** A job failed for good and is in the failed list. */
  failed: [event: { job: ClaimedJob; error: unknown }];
  /** The worker lost a job's claim (its lease expired and it was reclaimed); nothing was reported. */
  lost: [event: { job: ClaimedJob; reason: string }];
  /**
   * A job was cancelled (`cancel`) while this worker ran it: its handler's `signal` aborted with
   * `JOBS_CANCELLED`, and nothing it returns is recorded.
   */
  cancelled: [event: { job: ClaimedJob }];
  /** A handler snoozed its job (`ctx.snooze`): it waits `delayMs` in the delayed set, the attempt not counted. */
  snoozed: [event: { job: ClaimedJob; delayMs: number }];
  /** Something went wrong outside a handler (Redis unreachable, a sweep failed). The worker keeps going. */
  error: [error: unknown];
  /** `close()` finished. */
  closed: [];
}
