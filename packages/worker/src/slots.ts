import type { ClaimedJob } from '@jobs/core';
import type { Execution } from './execution.ts';
import type { Lane } from './lane.ts';

/** A claimed job and the lane it came from, waiting for a slot to start in. */
export interface WaitingJob {
  readonly job: ClaimedJob;
  readonly lane: Lane;
}

/**
 * The worker's `concurrency` slots. A slot runs a job, holds a claimed job waiting to start, or
 * is reserved for a claim in flight; the rest are free. Claims ask for free slots only, so jobs
 * running never exceed the concurrency, and a claimed job is never dropped: it waits here until
 * a slot frees, or until shutdown hands it back.
 */
export class Slots {
  #concurrency: number;
  /** Running jobs by claim token (the same job claimed again is another execution). */
  readonly running = new Map<string, Execution>();
  /** Claimed jobs waiting for a slot (those a completion batch claimed wait for its slots to free). */
  readonly #waiting: WaitingJob[] = [];
  /** Slots promised to claims in flight. */
  #reserved = 0;
  /** Set once shutdown hands jobs back: nothing starts any more. */
  #starting = true;
  #freedWaiters: (() => void)[] = [];
  readonly #start: (job: ClaimedJob, lane: Lane) => void;

  /** `start` runs a job in a slot that is its own from then on, until {@link ended}. */
  constructor(concurrency: number, start: (job: ClaimedJob, lane: Lane) => void) {
    this.#concurrency = concurrency;
    this.#start = start;
  }

  /** Jobs run at once at most. */
  get concurrency(): number {
    return this.#concurrency;
  }

  /**
   * Changes the slot count: with more, waiting jobs start and the fetch loop claims at once;
   * with fewer, running jobs go on (none is aborted) and nothing starts or is claimed until the
   * running ones are below the new count ({@link free} is negative meanwhile).
   */
  setConcurrency(concurrency: number): void {
    this.#concurrency = concurrency;
    this.startWaiting();
    this.wakeWaiters();
  }

  /** Slots neither running a job, nor holding a claimed one, nor reserved for a claim in flight (negative after a lowered concurrency). */
  free(): number {
    return this.#concurrency - this.running.size - this.#waiting.length - this.#reserved;
  }

  /** Slots reserved for claims in flight. */
  get reserved(): number {
    return this.#reserved;
  }

  /** Promises `count` slots to a claim about to be sent. */
  reserve(count: number): void {
    this.#reserved += count;
  }

  /**
   * A claim answered: the `count` slots it was promised are no longer reserved (its jobs, if
   * any, are {@link hold}ing slots by now). The fetch loop may be waiting for a slot, and a claim
   * made alongside another lane's completion batch can answer after every running job has
   * finished: wake it, or nothing else would.
   */
  unreserve(count: number): void {
    if (count <= 0) return;
    this.#reserved -= count;
    this.wakeWaiters();
  }

  /** A claimed job takes a slot; it starts once one is free (see {@link startWaiting}). */
  hold(job: ClaimedJob, lane: Lane): void {
    this.#waiting.push({ job, lane });
  }

  /** Starts waiting jobs while there are slots for them (none once {@link stopStarting} was called). */
  startWaiting(): void {
    while (this.#starting && this.#waiting.length > 0 && this.running.size < this.#concurrency) {
      const { job, lane } = this.#waiting.shift() as WaitingJob;
      this.#start(job, lane);
    }
  }

  /** A running job is done with its slot: start what waits, wake the fetch loop. */
  ended(execution: Execution): void {
    this.running.delete(execution.job.token);
    this.startWaiting();
    this.wakeWaiters();
  }

  /** Shutdown: no job starts from now on. */
  stopStarting(): void {
    this.#starting = false;
  }

  /** Takes the job of claim `token` out of those waiting for a slot, if it is one (it was cancelled meanwhile). */
  dropWaiting(token: string): WaitingJob | undefined {
    const index = this.#waiting.findIndex((waiting) => waiting.job.token === token);
    if (index < 0) return undefined;
    const [dropped] = this.#waiting.splice(index, 1);
    this.wakeWaiters();
    return dropped;
  }

  /** Takes the jobs waiting for a slot (shutdown hands them back). */
  takeWaiting(): WaitingJob[] {
    return this.#waiting.splice(0);
  }

  /** Resolves at the next change that may free a slot (or at shutdown). */
  whenFreed(): Promise<void> {
    return new Promise((resolve) => this.#freedWaiters.push(resolve));
  }

  /** Wakes every {@link whenFreed} waiter. */
  wakeWaiters(): void {
    const waiters = this.#freedWaiters;
    this.#freedWaiters = [];
    for (const wake of waiters) wake();
  }
}
