import { type ChildResult, type Logger } from '@jobs/core';
import { childLogger } from '@jobs/core/internal';
import type { Execution } from './execution.ts';
import type { JobContext } from './handler-map.ts';

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
  #log: Logger | undefined;

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

  get log(): Logger {
    this.#log ??= childLogger(this.#workerLog, { jobId: this.id, kind: this.kind, attempt: this.attempt });
    return this.#log;
  }

  readonly extendLease = (ms?: number): Promise<void> => this.#execution.extendLease(ms);

  progress(value: unknown): Promise<void> {
    return this.#execution.lane.queue.progress(this.#execution.job, value);
  }

  children(): Promise<Record<string, ChildResult>> {
    return this.#execution.lane.queue.children(this.id);
  }
}
