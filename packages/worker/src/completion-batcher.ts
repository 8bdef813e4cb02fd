import type { ClaimedJob, CompleteAndClaimResult, CompleteOutcome, NotReplicatedError } from '@jobs/core';
import type { LaneQueue } from './lane-queue.ts';

/** A job to complete with its handler's result. */
export interface Completion {
  readonly job: ClaimedJob;
  readonly result: unknown;
}

/** Told how each completion went: its outcome, or the error that failed its whole batch. */
export interface CompletionListener<C extends Completion> {
  completed(completion: C, outcome: CompleteOutcome): void;
  failed(completion: C, error: unknown): void;
}

/** How the batcher asks its worker for work to claim with each batch. */
export interface ClaimSlots {
  /**
   * A batch of `completing` jobs is about to be sent: how many jobs to claim with it. The
   * completing jobs' own slots pass to the jobs claimed; more may be reserved if free.
   */
  reserve(completing: number): number;
  /** The batch's reply: the jobs claimed (start them) out of `reserved` asked for. */
  claimed(jobs: ClaimedJob[], reserved: number, completing: number): void;
  /** Durable mode: the batch's completions are done, but fewer replicas than asked hold them yet. */
  notReplicated(error: NotReplicatedError): void;
}

/** Calls in flight at once: while Redis runs one batch, the worker prepares the next. */
const MAX_IN_FLIGHT = 2;

/**
 * Completes jobs in batches and claims the next ones with them: one script call (one round trip,
 * one atomic step) per batch, for every completion that came in while earlier calls were in
 * flight. At low load a batch is one job and nothing waits; at high load round trips stop
 * growing with the number of jobs, and a worker never waits for a claim after a completion.
 */
export class CompletionBatcher<C extends Completion> {
  readonly #queue: Pick<LaneQueue, 'completeManyAndClaim'>;
  readonly #slots: ClaimSlots;
  readonly #listener: CompletionListener<C>;
  readonly #maxBatch: () => number;
  #waiting: C[] = [];
  #inFlight = 0;
  #scheduled = false;
  #idleWaiters: (() => void)[] = [];

  /** `maxBatch`: most completions per call, read at each call (half the concurrency keeps two calls busy). */
  constructor(queue: Pick<LaneQueue, 'completeManyAndClaim'>, slots: ClaimSlots, listener: CompletionListener<C>, maxBatch: () => number) {
    this.#queue = queue;
    this.#slots = slots;
    this.#listener = listener;
    this.#maxBatch = maxBatch;
  }

  /** True while completions wait to be sent or a batch is in flight. */
  get busy(): boolean {
    return this.#waiting.length > 0 || this.#scheduled || this.#inFlight > 0;
  }

  /** Resolves once nothing waits to be sent and no batch is in flight (at once if so now). */
  idle(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Completes `completion.job` with `completion.result` in a coming batch; the listener hears how it went. */
  complete(completion: C): void {
    this.#waiting.push(completion);
    this.#schedule();
  }

  /**
   * Sends what is waiting, soon. With nothing in flight, at the end of this turn's microtasks:
   * every handler that finished in this turn joins the batch, and a lone completion does not
   * wait a whole turn of the event loop. With a call in flight, in the next turn: two calls sent
   * in the same turn leave in one write, Redis reads them together and answers both only after
   * running both, and the worker then idles while Redis works and the other way round. A turn
   * apart, Redis answers the first while the second waits in its socket, and the worker runs the
   * first one's jobs meanwhile.
   */
  #schedule(): void {
    if (this.#scheduled || this.#waiting.length === 0 || this.#inFlight >= MAX_IN_FLIGHT) return;
    this.#scheduled = true;
    if (this.#inFlight === 0) queueMicrotask(this.#flush);
    else setImmediate(this.#flush);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    if (this.#waiting.length === 0 || this.#inFlight >= MAX_IN_FLIGHT) return;
    const batch = this.#waiting.splice(0, Math.max(1, Math.min(256, this.#maxBatch())));
    this.#inFlight += 1;
    void this.#call(batch);
    this.#schedule();
  };

  async #call(batch: C[]): Promise<void> {
    const reserved = this.#slots.reserve(batch.length);
    let reply: CompleteAndClaimResult;
    try {
      reply = await this.#queue.completeManyAndClaim(batch, { max: reserved });
    } catch (error) {
      this.#inFlight -= 1;
      this.#slots.claimed([], reserved, batch.length);
      for (const completion of batch) this.#listener.failed(completion, error);
      this.#schedule();
      this.#wakeIfIdle();
      return;
    }
    // Out of flight before the claimed jobs start, so their completions see how many are.
    this.#inFlight -= 1;
    try {
      this.#slots.claimed(reply.next, reserved, batch.length);
      if (reply.notReplicated) this.#slots.notReplicated(reply.notReplicated);
      for (let index = 0; index < batch.length; index += 1) this.#listener.completed(batch[index] as C, reply.outcomes[index] as CompleteOutcome);
    } finally {
      this.#schedule();
      this.#wakeIfIdle();
    }
  }

  #wakeIfIdle(): void {
    if (this.busy || this.#idleWaiters.length === 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const wake of waiters) wake();
  }
}
