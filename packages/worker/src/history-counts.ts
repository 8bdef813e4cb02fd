import { HISTORY_FIELD, runBucketOf } from '@jobs/core/internal';
import type { Clock, TimerHandle } from './clock.ts';

/** Where a worker's counts for the queue's metrics history go (see `addHistory` in core). */
export interface HistorySink {
  /**
   * Adds the counts of the jobs of partition `partition` (its queue's name) to its history in
   * Redis: per kind, the history's fields in order, index 0 being field 1.
   */
  add(partition: string, counts: ReadonlyMap<string, readonly number[]>): Promise<unknown>;
}

/** Per partition (its queue's name), per kind, the fields counted. */
type Counts = Map<string, Map<string, number[]>>;

/** What a {@link HistoryCounts} runs on. */
export interface HistoryCountsOptions {
  readonly sink: HistorySink;
  readonly clock: Clock;
  /** Between the end of one flush and the next (ms). */
  readonly intervalMs: number;
  /** How many fields a kind's counts have (the history's slot fields). */
  readonly fields: number;
  /** Hears a flush that failed; its counts are kept for the next one. */
  onError(error: unknown): void;
}

/** How an attempt ended, as the history counts it (a delayed retry is a retry). */
export type HistoryOutcome = 'completed' | 'retried' | 'delayed' | 'failed';

/**
 * A worker's counts for the queue's metrics history: each attempt's outcome and run time added
 * in memory, per partition and kind, and sent in one script call per partition every
 * `intervalMs` (the heartbeat's cadence) and once more by {@link stop}. Nothing goes to Redis per job. A flush that fails
 * keeps its counts for the next one; a worker killed without closing loses its last interval.
 */
export class HistoryCounts {
  readonly #options: HistoryCountsOptions;
  #counts: Counts = new Map();
  #timer: TimerHandle | undefined;
  #inFlight: Promise<void> | undefined;
  #stopped = false;

  constructor(options: HistoryCountsOptions) {
    this.#options = options;
    this.#schedule();
  }

  /** An attempt of kind `kind`, claimed from partition `partition`, ended with `outcome` after its handler ran `durationMs`. */
  ended(partition: string, kind: string, outcome: HistoryOutcome, durationMs: number): void {
    let kinds = this.#counts.get(partition);
    if (kinds === undefined) {
      kinds = new Map();
      this.#counts.set(partition, kinds);
    }
    let counts = kinds.get(kind);
    if (counts === undefined) {
      counts = new Array<number>(this.#options.fields).fill(0);
      kinds.set(kind, counts);
    }
    const field = outcome === 'completed' ? HISTORY_FIELD.completed : outcome === 'failed' ? HISTORY_FIELD.failed : HISTORY_FIELD.retried;
    counts[field - 1] = (counts[field - 1] as number) + 1;
    const bucket = HISTORY_FIELD.firstRunBucket - 1 + runBucketOf(durationMs);
    counts[bucket] = (counts[bucket] as number) + 1;
  }

  #schedule(): void {
    if (!this.#stopped) this.#timer = this.#options.clock.setTimeout(() => void this.#flush().finally(() => this.#schedule()), this.#options.intervalMs);
  }

  /**
   * Sends what was counted since the last flush, one call per partition with counts; a call that
   * fails puts its counts back, to be sent with the next flush.
   */
  #flush(): Promise<void> {
    if (this.#counts.size === 0) return Promise.resolve();
    const sent = this.#counts;
    this.#counts = new Map();
    let failure: unknown;
    const calls = [...sent].map(([partition, kinds]) =>
      this.#options.sink.add(partition, kinds).catch((error: unknown) => {
        this.#merge(partition, kinds);
        failure ??= error;
      }),
    );
    this.#inFlight = Promise.all(calls).then(() => {
      this.#inFlight = undefined;
      if (failure !== undefined) this.#options.onError(failure);
    });
    return this.#inFlight;
  }

  #merge(partition: string, back: ReadonlyMap<string, readonly number[]>): void {
    let kinds = this.#counts.get(partition);
    if (kinds === undefined) {
      kinds = new Map();
      this.#counts.set(partition, kinds);
    }
    for (const [kind, amounts] of back) {
      const counts = kinds.get(kind);
      if (counts === undefined) kinds.set(kind, [...amounts]);
      else for (let f = 0; f < amounts.length; f += 1) counts[f] = (counts[f] as number) + (amounts[f] as number);
    }
  }

  /** Stops the timer, waits for a flush in flight, then sends the rest (once; a failure is reported, not retried). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#options.clock.clearTimeout(this.#timer);
    await this.#inFlight;
    await this.#flush();
  }
}
