import type { ChildResult, KindName } from '@jobs/core';
import type { IsolatedHandlerEntry } from './isolate/isolated-handler.ts';
import type { JobLog } from './job-log.ts';

/** What a handler gets beside its payload. */
export interface JobContext<N extends string = string> {
  /** The job's id. */
  readonly id: string;
  /** The job's kind. */
  readonly kind: N;
  /** Which attempt this is, from 1. */
  readonly attempt: number;
  /** Attempts allowed before the job is dead-lettered. */
  readonly maxAttempts: number;
  /** When the job was enqueued (Redis clock, ms), if known. */
  readonly enqueuedAtMs: number | undefined;
  /**
   * Aborted when the attempt must stop: past the kind's `timeoutMs`, when the lease was lost
   * (the job was reclaimed), or when the worker shuts down past its grace period. Pass it to
   * fetch, streams and timers so work stops with it.
   */
  readonly signal: AbortSignal;
  /**
   * Renews the lease now, for `ms` from now (default: the job's lease length), and renews for
   * that long from then on. The worker already renews leases on its own; call this when one
   * step is known to take longer than the lease. Rejects with `JOBS_LOST_CLAIM` when the job
   * was reclaimed meanwhile.
   */
  extendLease(ms?: number): Promise<void>;
  /**
   * Reports progress (any JSON value, at most 16 KiB): stored on the job (`getJob(id).progress`)
   * and published on the queue's events channel, where `waitForResult(id, { onProgress })`
   * hears it. Rejects with `JOBS_PAYLOAD_TOO_LARGE` or `JOBS_NOT_SERIALIZABLE` for a bad value
   * (nothing is written), and `JOBS_LOST_CLAIM` when the job was reclaimed meanwhile.
   */
  progress(value: unknown): Promise<void>;
  /**
   * Called, stores a line with the job (`ctx.log('sent', { to })`, formatted as `console.log`
   * does), read back with `queue.logs(id)` and shown on the dashboard's job page: lines are sent
   * in batches, at the latest before the job's outcome, fenced by its claim (a lost claim's lines
   * are dropped), capped by the queue's `jobLogs`. Its methods (`ctx.log.info(fields, message)`...)
   * are the worker's logger bound to this job (id, kind, attempt); they store nothing.
   */
  readonly log: JobLog;
  /**
   * For a flow's parent: its children by id, each with its kind and how it settled (`completed`
   * with its `result`; under `onChildFailure: 'ignore'`, `failed` or `cancelled` with its
   * `error`). One read of the parent's hash per call; `{}` for a job without children.
   */
  children(): Promise<Record<string, ChildResult>>;
  /**
   * Stores a checkpoint of the job's work (any JSON value, at most 64 KiB: a cursor, the last
   * page done), fenced by its claim, which later attempts read back with {@link checkpointed}:
   * after a crash, a deploy's shutdown, a retry or a snooze, the job resumes there instead of
   * from the start. Rejects with `JOBS_PAYLOAD_TOO_LARGE` or `JOBS_NOT_SERIALIZABLE` for a bad
   * value (nothing is written), `JOBS_LOST_CLAIM` / `JOBS_CANCELLED` when the claim is gone.
   */
  checkpoint(state: unknown): Promise<void>;
  /** The job's last checkpoint (see {@link checkpoint}), from this attempt or an earlier one; undefined when none. One read. */
  checkpointed(): Promise<unknown>;
  /**
   * Puts the job back to wait `ms` (0 to 30 days) without spending an attempt: the attempt ends
   * now (its `signal` aborts with `JOBS_SNOOZED`) and nothing the handler returns afterwards is
   * recorded, so write `return ctx.snooze(60_000)`. For work that is not ready yet (a report
   * whose data has not landed, a provider's "try later"). Counted in `stats().snoozedTotal`
   * and logged `snoozed`.
   */
  snooze(ms: number): Promise<void>;
}

/**
 * Runs one job of a kind. Return a value (JSON) to complete the job with it as its result;
 * throw to fail the attempt (retried with the kind's backoff); throw `PermanentError` to fail
 * it for good.
 */
export type Handler<Payload, N extends string = string> = (payload: Payload, context: JobContext<N>) => unknown;

/** One job of a batch: its payload beside what a single handler's context has (see {@link JobContext}). */
export interface BatchJob<Payload, N extends string = string> extends JobContext<N> {
  /** The job's payload, typed by its kind's schema. */
  readonly payload: Payload;
}

/** What a batch handler gets beside its jobs. */
export interface BatchContext<N extends string = string> {
  /** The batch's kind. */
  readonly kind: N;
  /**
   * Aborted when the whole batch must stop: past the kind's `timeoutMs` (counted from the
   * batch's start), when the worker shuts down past its grace period, or once every job of the
   * batch lost its lease. A job that alone must stop (its lease lost) aborts its own `signal`.
   */
  readonly signal: AbortSignal;
}

/**
 * What a batch handler returns: nothing (every job completes, without a result), or one entry
 * per job, in the jobs' order: a value completes its job with it as its result, an `Error`
 * (any instance: `PermanentError`, `RateLimitedError` and the rest mean what they mean when a
 * single handler throws them) fails only that job.
 */
export type BatchResults = readonly unknown[] | void;

/**
 * Runs a batch of jobs of one kind at once (bulk inserts, one LLM call for many prompts).
 * Return {@link BatchResults} to settle each job on its own; throw to fail every job of the
 * batch (each retried with its own attempts and the kind's backoff).
 */
export type BatchHandler<Payload, N extends string = string> = (jobs: readonly BatchJob<Payload, N>[], batch: BatchContext<N>) => BatchResults | Promise<BatchResults>;

/** How a kind's jobs are gathered into batches (see {@link BatchHandlerEntry}). */
export interface BatchOptions {
  /** The most jobs a batch holds, and the worker slots it takes. Whole number from 1 to the worker's `concurrency`. */
  readonly size: number;
  /**
   * The fewest jobs a batch runs with once `maxWaitMs` has passed: with fewer, the gathered jobs
   * wait (their leases renewed) for more. Whole number from 1 to `size`. Default 1.
   */
  readonly minSize?: number;
  /**
   * How long after its first job a batch that is not full runs anyway (with `minSize` jobs at
   * least). Whole ms from 0 (the jobs one claim brings) to 3,600,000.
   */
  readonly maxWaitMs: number;
}

/** A kind whose jobs run in batches: the handler and how its batches are gathered. */
export interface BatchHandlerEntry<Payload, N extends string = string> {
  readonly handler: BatchHandler<Payload, N>;
  readonly batch: BatchOptions;
}

/**
 * One handler per kind of the registry, each typed by its kind's schema: a missing kind, an
 * extra one, or a handler whose payload type does not match is a compile error. A kind's entry
 * is a {@link Handler} (one job at a time), a {@link BatchHandlerEntry} (`{ handler, batch }`,
 * jobs in batches) or an {@link IsolatedHandlerEntry} (`{ isolate, module }`, the handler in a
 * child thread or process; its module's payload type is its own to declare).
 */
export type HandlerMap<P> = { readonly [N in KindName<P>]: Handler<P[N], N> | BatchHandlerEntry<P[N], N> | IsolatedHandlerEntry };
