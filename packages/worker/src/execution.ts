import { isJobsError, JobCancelledError, JOBS_ERROR_CODES, JobsError, LostClaimError, type ClaimedJob } from '@jobs/core';
import type { TimerHandle } from './clock.ts';
import type { JobLogBuffer } from './job-log.ts';
import type { Lane } from './lane.ts';

/** How one handler call ended. */
export type HandlerOutcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: unknown };

/** Told once when an execution's handler has settled (or the attempt was aborted first). */
export type OnOutcome = (execution: Execution, outcome: HandlerOutcome) => void;

const SETTLED: Promise<void> = Promise.resolve();

/**
 * One run of one claimed job (keyed by its claim token: the same job claimed again is another
 * execution), and all the state the worker keeps for it, so that a job costs one object rather
 * than a handful of closures and promises. It can be aborted (a timeout, a lost lease, a cancel,
 * a shutdown): the handler is told through `signal`, and the outcome is reported at once with the
 * reason, since JavaScript cannot stop a running function. The AbortController behind `signal`
 * is made only when a handler reads it or an abort comes, since most jobs never need one.
 */
export class Execution {
  readonly job: ClaimedJob;
  /** The queue (or partition) the job came from, where its outcome goes. */
  readonly lane: Lane;
  /** Set when shutdown handed the job back to pending: its outcome is no longer ours to report. */
  handedBack = false;
  /** Set when a renewal found the claim lost. */
  lost = false;
  /** Set when the job was cancelled while it ran: its claim is void, its outcome not ours to record. */
  cancelled = false;
  /** Set when the handler snoozed the job: it waits in the delayed set, its outcome already recorded. */
  snoozedMs: number | undefined = undefined;
  /** Each lease renewal makes the lease this long from now. */
  leaseMs = 0;
  /** When the handler was called (ms). */
  startedAt = 0;
  /** The kind's timeout, while it runs. */
  timer: TimerHandle | undefined;
  /** What the handler returned, once it has; the completion stores it. */
  result: unknown;
  /** How long the handler ran (ms), once it has. */
  durationMs = 0;
  /** The attempt's span, while it runs, when tracing is on. */
  span: unknown = undefined;
  /** The handler's buffered `ctx.log` lines, once it logged one. */
  logs: JobLogBuffer | undefined = undefined;
  readonly #onOutcome: OnOutcome;
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #running = false;
  #finished = false;
  #done: Promise<void> | undefined;
  #resolveDone: (() => void) | undefined;

  /** `onOutcome` hears how the handler ended, once. */
  constructor(job: ClaimedJob, lane: Lane, onOutcome: OnOutcome) {
    this.job = job;
    this.lane = lane;
    this.#onOutcome = onOutcome;
  }

  /** Aborted when the attempt must stop; its reason says why. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** True once the attempt was stopped (see {@link abort}). */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Settles when the job's outcome is recorded (or it was handed back). Made on first use. */
  get done(): Promise<void> {
    if (this.#finished) return SETTLED;
    this.#done ??= new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
    return this.#done;
  }

  /** The worker is done with this execution: settles {@link done}. */
  finish(): void {
    this.#finished = true;
    this.#resolveDone?.();
  }

  /** Stops the attempt: aborts `signal` and reports `reason` as the outcome. Only the first call counts. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.#settle({ ok: false, error: reason });
  }

  /**
   * A lease renewal found the claim gone: the job was reclaimed, or (`cancelled`) cancelled
   * while it ran. The attempt stops.
   */
  readonly onLeaseLost = (cancelled = false): void => {
    if (cancelled) {
      this.onCancelled();
      return;
    }
    this.lost = true;
    this.abort(new LostClaimError(this.job.id, 'renew the lease of'));
  };

  /** The job was cancelled while it ran (the control channel said so, or a renewal): the attempt stops with `JOBS_CANCELLED`. */
  onCancelled(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.abort(new JobCancelledError(this.job.id));
  }

  /** Awaits a fenced call; a claim it finds lost or cancelled stops the attempt as a renewal would. */
  async #fenced<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      if (isJobsError(error, 'JOBS_LOST_CLAIM')) this.onLeaseLost();
      else if (isJobsError(error, 'JOBS_CANCELLED')) this.onCancelled();
      throw error;
    }
  }

  /** Renews the lease now for `ms`, and for that long from then on (see `JobContext.extendLease`). */
  async extendLease(ms = this.leaseMs): Promise<void> {
    await this.#fenced(this.lane.queue.extendLease(this.job, ms));
    this.leaseMs = ms;
    this.lane.leases.setLeaseMs(this.job, ms);
  }

  /**
   * Puts the job back to wait `ms` without spending the attempt (see `JobContext.snooze`): the
   * lease stops, and the attempt ends at once (its signal aborts with `JOBS_SNOOZED`), whatever
   * the handler returns afterwards.
   */
  async snooze(ms: number): Promise<void> {
    await this.#fenced(this.lane.queue.snooze(this.job, ms));
    this.snoozedMs = ms;
    this.lane.leases.remove(this.job);
    this.abort(new JobsError(JOBS_ERROR_CODES.SNOOZED, `job ${this.job.id} was snoozed for ${ms} ms: this attempt is over and is not counted`));
  }

  /** Stores the job's checkpoint, fenced by this claim (see `JobContext.checkpoint`). */
  async checkpoint(state: unknown): Promise<void> {
    await this.#fenced(this.lane.queue.checkpoint(this.job, state));
  }

  /**
   * Calls `handler(payload, context)`; its outcome (or the abort reason, as soon as one comes)
   * goes to `onOutcome`. A handler that returns without a promise is reported in the same turn.
   */
  run<C>(handler: (payload: unknown, context: C) => unknown, payload: unknown, context: C): void {
    if (this.#aborted) {
      this.#onOutcome(this, { ok: false, error: this.#reason });
      return;
    }
    this.#running = true;
    let returned: unknown;
    try {
      returned = handler(payload, context);
    } catch (error) {
      this.#settle({ ok: false, error });
      return;
    }
    if (typeof (returned as PromiseLike<unknown> | null)?.then === 'function') {
      (returned as PromiseLike<unknown>).then(
        (result) => this.#settle({ ok: true, result }),
        (error: unknown) => this.#settle({ ok: false, error }),
      );
    } else {
      this.#settle({ ok: true, result: returned });
    }
  }

  #settle(outcome: HandlerOutcome): void {
    if (!this.#running) return;
    this.#running = false;
    this.#onOutcome(this, outcome);
  }
}
