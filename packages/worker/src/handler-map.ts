import type { ChildResult, KindName } from '@jobs/core';
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
}

/**
 * Runs one job of a kind. Return a value (JSON) to complete the job with it as its result;
 * throw to fail the attempt (retried with the kind's backoff); throw `PermanentError` to fail
 * it for good.
 */
export type Handler<Payload, N extends string = string> = (payload: Payload, context: JobContext<N>) => unknown;

/**
 * One handler per kind of the registry, each typed by its kind's schema: a missing kind, an
 * extra one, or a handler whose payload type does not match is a compile error.
 */
export type HandlerMap<P> = { readonly [N in KindName<P>]: Handler<P[N], N> };
