import type { EventEmitter } from 'node:events';
import { isJobsError, JOBS_ERROR_CODES, LostClaimError, PermanentError, type ClaimedJob, type Logger } from '@jobs/core';
import type { Clock } from './clock.ts';
import type { CompletionListener } from './completion-batcher.ts';
import type { Execution, HandlerOutcome } from './execution.ts';
import type { Slots } from './slots.ts';
import type { WorkerEventMap } from './worker-events.ts';
import type { WorkerMetrics } from './worker-metrics.ts';

/**
 * Records how each job ended, then frees its slot: a result goes to its lane's completion batch
 * (which claims the next jobs with it), an error to a retry or the dead letters, a lost claim to
 * a `lost` event. A job handed back at shutdown is no longer ours to report.
 */
export class OutcomeReporter {
  readonly #events: EventEmitter<WorkerEventMap>;
  readonly #log: Logger;
  readonly #reportError: (error: unknown, message: string) => void;
  readonly #slots: Slots;
  readonly #clock: Clock;
  readonly #metrics: WorkerMetrics | undefined;

  constructor(events: EventEmitter<WorkerEventMap>, log: Logger, reportError: (error: unknown, message: string) => void, slots: Slots, clock: Clock, metrics: WorkerMetrics | undefined) {
    this.#events = events;
    this.#log = log;
    this.#reportError = reportError;
    this.#slots = slots;
    this.#clock = clock;
    this.#metrics = metrics;
  }

  /** Records `outcome`, the end of a handler that ran for `durationMs`. */
  report(execution: Execution, outcome: HandlerOutcome, durationMs: number): void {
    if (execution.handedBack) {
      this.finish(execution);
      return;
    }
    if (execution.lost) {
      this.#lost(execution.job, 'the lease expired and the job was reclaimed');
      this.finish(execution);
      return;
    }
    execution.durationMs = durationMs;
    if (!outcome.ok) {
      void this.#fail(execution, outcome.error);
      return;
    }
    execution.result = outcome.result;
    execution.lane.completions.complete(execution);
  }

  /** How each completion of a batch went (the lanes' completion batchers tell it). */
  readonly completions: CompletionListener<Execution> = {
    completed: (execution, completion) => {
      const { job } = execution;
      if (completion.status === 'completed') {
        const events = this.#events;
        try {
          if (events.listenerCount('completed') > 0) events.emit('completed', { job, result: execution.result, durationMs: execution.durationMs });
        } catch (error) {
          this.#reportError(error, 'a completed listener threw');
        }
        if (this.#metrics !== undefined) this.#metrics.ended(job, 'completed', execution.durationMs);
        this.finish(execution);
      } else if (execution.handedBack) {
        this.finish(execution);
      } else if (completion.status === 'lost') {
        this.#lost(job, new LostClaimError(job.id, 'complete').message);
        this.finish(execution);
      } else {
        // A result that cannot be stored would fail the same way on every attempt.
        void this.#fail(execution, new PermanentError(`the handler's result cannot be stored: ${completion.error.message}`, { cause: completion.error }));
      }
    },
    failed: (execution, error) => {
      if (execution.handedBack) {
        // Handed back at shutdown: the outcome is no longer ours to report.
      } else if (isJobsError(error, 'JOBS_LOST_CLAIM')) {
        this.#lost(execution.job, error.message);
      } else {
        this.#reportError(error, 'job bookkeeping failed');
      }
      this.finish(execution);
    },
  };

  /** Records a failed attempt: retried (now or after its backoff) or dead-lettered. */
  async #fail(execution: Execution, error: unknown): Promise<void> {
    const { job, lane } = execution;
    try {
      const permanent = isJobsError(error, JOBS_ERROR_CODES.PERMANENT);
      const result = await lane.queue.fail(job, error, { permanent });
      if (this.#metrics !== undefined) this.#metrics.ended(job, result, execution.durationMs);
      if (result === 'failed') this.#events.emit('failed', { job, error });
      else this.#events.emit('retrying', { job, error, outcome: result });
    } catch (failure) {
      if (execution.handedBack) return;
      if (isJobsError(failure, 'JOBS_LOST_CLAIM')) this.#lost(job, failure.message);
      else this.#reportError(failure, 'job bookkeeping failed');
    } finally {
      this.finish(execution);
    }
  }

  /** The worker is done with `execution`: its timer and lease stop, and its slot is free again. */
  finish(execution: Execution): void {
    this.#clock.clearTimeout(execution.timer);
    execution.lane.leases.remove(execution.job);
    execution.finish();
    this.#slots.ended(execution);
  }

  #lost(job: ClaimedJob, reason: string): void {
    if (this.#metrics !== undefined) this.#metrics.lost(job);
    this.#log.warn({ jobId: job.id, reason }, 'lost the claim on a job; its outcome was not reported');
    this.#events.emit('lost', { job, reason });
  }
}
