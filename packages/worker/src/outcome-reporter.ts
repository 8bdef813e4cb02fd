import { isJobsError, JOBS_ERROR_CODES, LostClaimError, PermanentError, RateLimitedError, type ClaimedJob } from '@jobs/core';
import type { CompletionListener } from './completion-batcher.ts';
import type { Execution, HandlerOutcome } from './execution.ts';
import type { Slots } from './slots.ts';
import type { WorkerContext } from './worker-context.ts';

/**
 * Records how each job ended, then frees its slot: a result goes to its lane's completion batch
 * (which claims the next jobs with it), an error to a retry or the dead letters, a lost claim to
 * a `lost` event, a job cancelled while it ran to a `cancelled` event, a snoozed one to a
 * `snoozed` event. A job handed back at shutdown is no longer ours to report.
 */
export class OutcomeReporter {
  readonly #context: WorkerContext;
  readonly #slots: Slots;

  constructor(context: WorkerContext, slots: Slots) {
    this.#context = context;
    this.#slots = slots;
  }

  /**
   * Records `outcome`, the end of a handler that ran for `durationMs`, once the lines the handler
   * logged are stored (under the same claim, before its complete or fail).
   */
  report(execution: Execution, outcome: HandlerOutcome, durationMs: number): void {
    const logs = execution.logs;
    if (logs !== undefined) {
      void logs.close().then(() => this.#report(execution, outcome, durationMs));
      return;
    }
    this.#report(execution, outcome, durationMs);
  }

  #report(execution: Execution, outcome: HandlerOutcome, durationMs: number): void {
    if (execution.handedBack) {
      this.finish(execution);
      return;
    }
    if (execution.lost) {
      this.#lost(execution.job, 'the lease expired and the job was reclaimed');
      this.finish(execution);
      return;
    }
    if (execution.cancelled) {
      this.#cancelled(execution);
      return;
    }
    if (execution.snoozedMs !== undefined) {
      this.#snoozed(execution, execution.snoozedMs);
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
        const { events, metrics } = this.#context;
        try {
          if (events.listenerCount('completed') > 0) events.emit('completed', { job, result: execution.result, durationMs: execution.durationMs });
        } catch (error) {
          this.#context.reportError(error, 'a completed listener threw');
        }
        if (metrics !== undefined) metrics.ended(job, 'completed', execution.durationMs);
        this.#context.history?.ended(execution.lane.queue.name, job.kind ?? 'unknown', 'completed', execution.durationMs);
        this.finish(execution);
      } else if (execution.handedBack) {
        this.finish(execution);
      } else if (completion.status === 'cancelled') {
        this.#cancelled(execution);
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
        this.#context.reportError(error, 'job bookkeeping failed');
      }
      this.finish(execution);
    },
  };

  /** Records a failed attempt: retried (now or after its backoff) or dead-lettered; a pushback holds the kind back instead. */
  async #fail(execution: Execution, error: unknown): Promise<void> {
    const { job, lane } = execution;
    try {
      if (error instanceof RateLimitedError) {
        const until = await lane.queue.rateLimited(job, error.retryAfterMs, error.message);
        this.#context.log.info({ jobId: job.id, kind: job.kind, untilMs: until }, 'the service pushed back: the kind waits, the job goes back without using an attempt');
        this.#context.events.emit('rateLimited', { job, error, untilMs: until });
        this.#context.metrics?.rateLimited(job.kind ?? 'unknown', error.retryAfterMs);
        return;
      }
      const permanent = isJobsError(error, JOBS_ERROR_CODES.PERMANENT);
      const result = await lane.queue.fail(job, error, { permanent });
      const { events, metrics } = this.#context;
      if (metrics !== undefined) metrics.ended(job, result, execution.durationMs);
      this.#context.history?.ended(lane.queue.name, job.kind ?? 'unknown', result, execution.durationMs);
      if (result === 'failed') events.emit('failed', { job, error });
      else events.emit('retrying', { job, error, outcome: result });
    } catch (failure) {
      if (execution.handedBack) return;
      if (execution.cancelled) this.#emitCancelled(execution);
      else if (isJobsError(failure, 'JOBS_LOST_CLAIM')) this.#lost(job, failure.message);
      else this.#context.reportError(failure, 'job bookkeeping failed');
    } finally {
      this.finish(execution);
    }
  }

  /** The worker is done with `execution`: its timer and lease stop, and its slot is free again. */
  finish(execution: Execution): void {
    this.#context.clock.clearTimeout(execution.timer);
    execution.lane.leases.remove(execution.job);
    execution.finish();
    this.#slots.ended(execution);
  }

  /** The job was cancelled while it ran: nothing is recorded (the cancel did that), its slot is free. */
  #cancelled(execution: Execution): void {
    this.#emitCancelled(execution);
    this.finish(execution);
  }

  /** The handler snoozed its job: the snooze recorded it, so its slot is free. */
  #snoozed(execution: Execution, delayMs: number): void {
    try {
      this.#context.events.emit('snoozed', { job: execution.job, delayMs });
    } catch (error) {
      this.#context.reportError(error, 'a snoozed listener threw');
    }
    this.finish(execution);
  }

  #emitCancelled(execution: Execution): void {
    const { events, log } = this.#context;
    const job = execution.job;
    log.info({ jobId: job.id, kind: job.kind }, 'the job was cancelled while it ran; its handler was told through its signal');
    try {
      events.emit('cancelled', { job });
    } catch (error) {
      this.#context.reportError(error, 'a cancelled listener threw');
    }
  }

  #lost(job: ClaimedJob, reason: string): void {
    const { events, log, metrics } = this.#context;
    if (metrics !== undefined) metrics.lost(job);
    log.warn({ jobId: job.id, reason }, 'lost the claim on a job; its outcome was not reported');
    events.emit('lost', { job, reason });
  }
}
