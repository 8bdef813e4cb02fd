import { format } from 'node:util';
import { isJobsError, type LogLineInput, type Logger } from '@jobs/core';
import type { Execution } from './execution.ts';

/**
 * A handler's `ctx.log`: called, it stores a line with the job (see {@link JobLogBuffer}); its
 * methods are the worker's logger bound to the job, as before (they store nothing).
 */
export type JobLog = Logger & ((...parts: unknown[]) => void);

/** Lines buffered before they are sent without waiting for the timer. */
const FLUSH_LINES = 100;
/** How long the first buffered line waits for others before they are sent together (ms). */
const FLUSH_DELAY_MS = 1_000;

/**
 * The log lines of one execution, buffered and sent together (one script call per batch, never
 * one per line): when {@link FLUSH_LINES} are waiting, {@link FLUSH_DELAY_MS} after the first of a
 * batch, and at the latest before the job's outcome is reported (see OutcomeReporter), so every
 * line logged before the handler settled is stored before its completion or failure, under the
 * same claim. A lost claim's lines are refused by Redis and dropped here, with one warning.
 * Made on the first line: a handler that never logs costs nothing.
 */
export class JobLogBuffer {
  readonly #execution: Execution;
  readonly #warn: (fields: object, message: string) => void;
  #lines: LogLineInput[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #sending: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(execution: Execution, warn: (fields: object, message: string) => void) {
    this.#execution = execution;
    this.#warn = warn;
  }

  /** Buffers one line made of `parts` as `console.log` would format them. */
  add(parts: unknown[]): void {
    if (this.#closed) return;
    this.#lines.push({ atMs: Date.now(), line: format(...parts) });
    if (this.#lines.length >= FLUSH_LINES) void this.flush();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
      this.#timer.unref?.();
    }
  }

  /** Sends the buffered lines (after any batch already on its way); never rejects. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#lines.length === 0) return this.#sending;
    const lines = this.#lines;
    this.#lines = [];
    const { job, lane } = this.#execution;
    this.#sending = this.#sending.then(() =>
      lane.queue.appendLogs(job, lines).catch((error: unknown) => {
        if (isJobsError(error, 'JOBS_LOST_CLAIM')) {
          // The claim is gone: later lines would be refused the same way.
          this.#closed = true;
          this.#warn({ jobId: job.id, lines: lines.length }, 'log lines refused: the claim on the job was lost');
        } else {
          this.#warn({ jobId: job.id, lines: lines.length, error: error instanceof Error ? error.message : String(error) }, 'log lines could not be stored');
        }
      }),
    );
    return this.#sending;
  }

  /** The last flush before the outcome: lines logged after it are dropped (the attempt is over). */
  close(): Promise<void> {
    const sent = this.flush();
    this.#closed = true;
    return sent;
  }
}
