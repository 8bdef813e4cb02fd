import { type ChildResult, type Logger } from '@jobs/core';
import { childLogger } from '@jobs/core/internal';
import type { Execution } from './execution.ts';
import type { BatchJob, JobContext } from './handler-map.ts';
import { JobLogBuffer, type JobLog } from './job-log.ts';

/**
 * What a handler gets beside its payload: one object per job, its signal and logger made only
 * when read. `extendLease` is an own, bound property, so a handler may destructure it.
 */
export class HandlerContext implements JobContext {
  readonly id: string;
  readonly kind: string;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly enqueuedAtMs: number | undefined;
  readonly #execution: Execution;
  readonly #workerLog: Logger;
  #logger: Logger | undefined;
  #log: JobLog | undefined;

  constructor(execution: Execution, kind: string, maxAttempts: number, workerLog: Logger) {
    const job = execution.job;
    this.id = job.id;
    this.kind = kind;
    this.attempt = job.attempts;
    this.maxAttempts = maxAttempts;
    this.enqueuedAtMs = job.enqueuedAtMs;
    this.#execution = execution;
    this.#workerLog = workerLog;
  }

  get signal(): AbortSignal {
    return this.#execution.signal;
  }

  get log(): JobLog {
    this.#log ??= this.#jobLog();
    return this.#log;
  }

  /** The worker's logger bound to this job, made when first used. */
  #bound(): Logger {
    this.#logger ??= childLogger(this.#workerLog, { jobId: this.id, kind: this.kind, attempt: this.attempt });
    return this.#logger;
  }

  /** `ctx.log`: a call buffers a line for the job; the methods log through the worker's logger. */
  #jobLog(): JobLog {
    const execution = this.#execution;
    const log = ((...parts: unknown[]): void => {
      execution.logs ??= new JobLogBuffer(execution, (fields, message) => this.#bound().warn(fields, message));
      execution.logs.add(parts);
    }) as JobLog;
    log.debug = (fields, message) => this.#bound().debug(fields, message);
    log.info = (fields, message) => this.#bound().info(fields, message);
    log.warn = (fields, message) => this.#bound().warn(fields, message);
    log.error = (fields, message) => this.#bound().error(fields, message);
    if (this.#workerLog.child !== undefined) log.child = (bindings) => (this.#bound().child as NonNullable<Logger['child']>)(bindings);
    return log;
  }

  readonly extendLease = (ms?: number): Promise<void> => this.#execution.extendLease(ms);

  progress(value: unknown): Promise<void> {
    return this.#execution.lane.queue.progress(this.#execution.job, value);
  }

  children(): Promise<Record<string, ChildResult>> {
    return this.#execution.lane.queue.children(this.id);
  }

  checkpoint(state: unknown): Promise<void> {
    return this.#execution.checkpoint(state);
  }

  checkpointed(): Promise<unknown> {
    return this.#execution.lane.queue.checkpointed(this.id);
  }

  snooze(ms: number): Promise<void> {
    return this.#execution.snooze(ms);
  }
}

/** One job as a batch handler sees it: a job's context with its payload. */
export class BatchJobContext extends HandlerContext implements BatchJob<unknown> {
  readonly payload: unknown;

  constructor(execution: Execution, kind: string, maxAttempts: number, workerLog: Logger, payload: unknown) {
    super(execution, kind, maxAttempts, workerLog);
    this.payload = payload;
  }
}
