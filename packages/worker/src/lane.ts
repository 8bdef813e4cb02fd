import type { CompletionBatcher } from './completion-batcher.ts';
import type { Execution } from './execution.ts';
import type { LaneQueue } from './lane-queue.ts';
import type { LeaseKeeper } from './lease-keeper.ts';

/** After an empty claim a lane is not asked again for this long, doubling up to the lane's cap. */
const FIRST_QUIET_MS = 100;

/**
 * One queue a worker serves, with its own lease keeper and completion batcher: the queue itself,
 * or one partition of a partitioned queue. A lane remembers whether it looked empty, so the
 * worker asks the lanes likely to have work first and does not spin on empty ones.
 */
export class Lane {
  readonly queue: LaneQueue;
  readonly leases: LeaseKeeper;
  readonly completions: CompletionBatcher<Execution>;
  /** The longest a lane that looked empty is left unasked. */
  readonly #maxQuietMs: number;
  #quietUntil = 0;
  #quietMs = 0;
  #woken = false;

  /** `maxQuietMs`: see {@link #maxQuietMs}; `completions`: makes the lane's completion batcher, which claims for this lane. */
  constructor(queue: LaneQueue, leases: LeaseKeeper, maxQuietMs: number, completions: (lane: Lane) => CompletionBatcher<Execution>) {
    this.queue = queue;
    this.#maxQuietMs = maxQuietMs;
    this.leases = leases;
    this.completions = completions(this);
  }

  /** True unless its last claim came back empty a short while ago and no push woke it since. */
  mayHaveWork(now: number): boolean {
    return this.#woken || now >= this.#quietUntil;
  }

  /** When it may have work again, if nothing wakes it. */
  get quietUntil(): number {
    return this.#woken ? 0 : this.#quietUntil;
  }

  /** A claim came back with `count` jobs (at `now`). */
  claimed(count: number, now: number): void {
    this.#woken = false;
    if (count > 0) {
      this.#quietMs = 0;
      this.#quietUntil = 0;
      return;
    }
    this.#quietMs = Math.min(this.#maxQuietMs, this.#quietMs === 0 ? Math.min(FIRST_QUIET_MS, this.#maxQuietMs) : this.#quietMs * 2);
    this.#quietUntil = now + this.#quietMs;
  }

  /** Its blocking wait ended: something may have been pushed. */
  wake(): void {
    this.#woken = true;
  }
}
