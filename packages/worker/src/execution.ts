import type { ClaimedJob } from '@jobs/core';
import type { Lane } from './lane.ts';

/** How one handler call ended. */
export type HandlerOutcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * One run of one claimed job (keyed by its claim token: the same job claimed again is another
 * execution). It can be aborted (a timeout, a lost lease, a shutdown): the handler is told
 * through `signal`, and {@link run} settles at once with the reason, since JavaScript cannot
 * stop a running function. The AbortController behind `signal` is made only when a handler
 * reads it or an abort comes, since most jobs never need one.
 */
export class Execution {
  readonly job: ClaimedJob;
  /** The queue (or partition) the job came from, where its outcome goes. */
  readonly lane: Lane;
  /** Set when shutdown handed the job back: its outcome is no longer ours to report. */
  released = false;
  /** Set when a renewal found the claim lost. */
  lost = false;
  /** Settles when the job's outcome is recorded (or it was handed back). */
  done: Promise<void> = Promise.resolve();
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #settle: ((outcome: HandlerOutcome) => void) | undefined;

  constructor(job: ClaimedJob, lane: Lane) {
    this.job = job;
    this.lane = lane;
  }

  /** Aborted when the attempt must stop; its reason says why. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Stops the attempt: aborts `signal` and settles {@link run} with `reason`. Only the first call counts. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.#settle?.({ ok: false, error: reason });
  }

  /** Calls `handler` and settles with its outcome, or with the abort reason as soon as one comes. */
  run(handler: () => unknown): Promise<HandlerOutcome> {
    return new Promise((resolve) => {
      if (this.#aborted) {
        resolve({ ok: false, error: this.#reason });
        return;
      }
      this.#settle = resolve;
      let returned: unknown;
      try {
        returned = handler();
      } catch (error) {
        resolve({ ok: false, error });
        return;
      }
      if (typeof (returned as PromiseLike<unknown> | null)?.then === 'function') {
        (returned as PromiseLike<unknown>).then(
          (result) => resolve({ ok: true, result }),
          (error: unknown) => resolve({ ok: false, error }),
        );
      } else {
        resolve({ ok: true, result: returned });
      }
    });
  }
}
