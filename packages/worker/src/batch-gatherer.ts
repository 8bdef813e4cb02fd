import type { Clock, TimerHandle } from './clock.ts';
import type { BatchLimits } from './handler-check.ts';

/** What the gatherers of a worker share: whether more jobs can still come to any of them. */
export interface GatherPool {
  /** True when gathered jobs fill every slot of the worker: none can come, so waiting for more would wait forever. */
  full(): boolean;
  /** A gatherer's count changed by `delta` (`from`: which one; the others hear of it when the worker fills). */
  counted(delta: number, from: object): void;
}

/**
 * Gathers one kind's jobs into batches: a batch runs once it has `size` jobs, or once
 * `maxWaitMs` has passed since its first job and it has `minSize` at least (and as soon as it
 * reaches `minSize` after that). It also runs below `minSize`, once `maxWaitMs` has passed, when
 * gathered jobs fill the worker (no other job can be claimed to join it), and at once after
 * {@link stop} (what is gathered runs within the shutdown's grace period). Items that ended
 * while gathered (`gone`: a lost lease, a hand-back) are dropped. Time comes from `clock`.
 */
export class BatchGatherer<T> {
  readonly #limits: BatchLimits;
  readonly #clock: Clock;
  readonly #pool: GatherPool;
  readonly #run: (items: T[]) => void;
  readonly #gone: (item: T) => boolean;
  #items: T[] = [];
  #timer: TimerHandle | undefined;
  /** The current batch's `maxWaitMs` has passed: it runs as soon as it has `minSize`. */
  #overdue = false;
  #stopped = false;

  /** `run` gets each batch (it owns the items from then on); `gone` says whether an item ended meanwhile. */
  constructor(limits: BatchLimits, clock: Clock, pool: GatherPool, run: (items: T[]) => void, gone: (item: T) => boolean) {
    this.#limits = limits;
    this.#clock = clock;
    this.#pool = pool;
    this.#run = run;
    this.#gone = gone;
  }

  /** How many items wait now. */
  get count(): number {
    return this.#items.length;
  }

  /** Adds an item to the batch being gathered; it may run at once. */
  add(item: T): void {
    this.#items.push(item);
    this.#pool.counted(1, this);
    if (this.#items.length >= this.#limits.size) this.#flush();
    else if (this.#overdue) this.#flushIfRipe();
    // Stopped: the items added in this turn (one claim's) run together, with no wait.
    else this.#timer ??= this.#clock.setTimeout(this.#onWaited, this.#stopped ? 0 : this.#limits.maxWaitMs);
  }

  /** Gathered jobs may now fill the worker (another gatherer grew): an overdue batch below `minSize` runs. */
  poolChanged(): void {
    if (this.#overdue) this.#flushIfRipe();
  }

  /** The worker stops claiming: what is gathered runs now, and whatever comes later without waiting. */
  stop(): void {
    this.#stopped = true;
    if (this.#items.length > 0) this.#flush();
  }

  readonly #onWaited = (): void => {
    this.#timer = undefined;
    this.#overdue = true;
    this.#flushIfRipe();
  };

  #flushIfRipe(): void {
    this.#prune();
    if (this.#items.length === 0) {
      this.#overdue = false;
      return;
    }
    if (this.#stopped || this.#items.length >= this.#limits.minSize || this.#pool.full()) this.#flush();
  }

  /** Drops the items that ended while gathered. */
  #prune(): void {
    const kept = this.#items.filter((item) => !this.#gone(item));
    if (kept.length === this.#items.length) return;
    this.#pool.counted(kept.length - this.#items.length, this);
    this.#items = kept;
  }

  /** Runs what is gathered (if anything is left once the ended items are dropped) and starts afresh. */
  #flush(): void {
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#overdue = false;
    this.#prune();
    const batch = this.#items;
    if (batch.length === 0) return;
    this.#items = [];
    this.#pool.counted(-batch.length, this);
    this.#run(batch);
  }
}

/**
 * The gatherers of one worker, keyed by kind, sharing its slots: when gathered jobs fill all
 * `concurrency` of them, overdue batches run below their `minSize` rather than wait forever.
 */
export class BatchGatherers<T> implements GatherPool {
  /** The worker's concurrency now (it may change while the worker runs). */
  readonly #concurrency: () => number;
  readonly #byKind = new Map<string, BatchGatherer<T>>();
  #gathered = 0;

  constructor(concurrency: () => number) {
    this.#concurrency = concurrency;
  }

  /** Adds the gatherer of `kind`. */
  set(kind: string, gatherer: BatchGatherer<T>): void {
    this.#byKind.set(kind, gatherer);
  }

  /** The gatherer of `kind`, if it runs in batches. */
  get(kind: string): BatchGatherer<T> | undefined {
    return this.#byKind.get(kind);
  }

  full(): boolean {
    return this.#gathered >= this.#concurrency();
  }

  counted(delta: number, from: object): void {
    this.#gathered += delta;
    if (delta <= 0 || !this.full()) return;
    for (const gatherer of this.#byKind.values()) if (gatherer !== from) gatherer.poolChanged();
  }

  /** The worker stops claiming: every gatherer runs what it holds. */
  stop(): void {
    for (const gatherer of this.#byKind.values()) gatherer.stop();
  }
}
