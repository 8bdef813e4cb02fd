import { HISTORY_FIELD, runBucketOf } from '@jobs/core/internal';
import type { Clock, TimerHandle } from './clock.ts';

/** Where a worker's counts for the queue's metrics history go (see `addHistory` in core). */
export interface HistorySink {
  /** Adds the counts (per kind, the history's fields in order, index 0 being field 1) in Redis. */
  add(counts: ReadonlyMap<string, readonly number[]>): Promise<unknown>;
}

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
 * in memory, per kind, and sent in one script call every `intervalMs` (the heartbeat's
 * cadence) and once more by {@link stop}. Nothing goes to Redis per job. A flush that fails
 * keeps its counts for the next one; a worker killed without closing loses its last interval.
 */
export class HistoryCounts {
  readonly #options: HistoryCountsOptions;
  #counts = new Map<string, number[]>();
  #timer: TimerHandle | undefined;
  #inFlight: Promise<void> | undefined;
  #stopped = false;

  constructor(options: HistoryCountsOptions) {
    this.#options = options;
    this.#schedule();
  }

  /** An attempt of kind `kind` ended with `outcome` after its handler ran `durationMs`. */
  ended(kind: string, outcome: HistoryOutcome, durationMs: number): void {
    let counts = this.#counts.get(kind);
    if (counts === undefined) {
      counts = new Array<number>(this.#options.fields).fill(0);
      this.#counts.set(kind, counts);
    }
    const field = outcome === 'completed' ? HISTORY_FIELD.completed : outcome === 'failed' ? HISTORY_FIELD.failed : HISTORY_FIELD.retried;
    counts[field - 1] = (counts[field - 1] as number) + 1;
    const bucket = HISTORY_FIELD.firstRunBucket - 1 + runBucketOf(durationMs);
    counts[bucket] = (counts[bucket] as number) + 1;
  }

  #schedule(): void {
    if (!this.#stopped) this.#timer = this.#options.clock.setTimeout(() => void this.#flush().finally(() => this.#schedule()), this.#options.intervalMs);
  }

  /** Sends what was counted since the last flush; on failure, puts it back to be sent with the next. */
  #flush(): Promise<void> {
    if (this.#counts.size === 0) return Promise.resolve();
    const sent = this.#counts;
    this.#counts = new Map();
    this.#inFlight = this.#options.sink.add(sent).then(
      () => undefined,
      (error: unknown) => {
        this.#merge(sent);
        this.#options.onError(error);
      },
    ).finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  #merge(back: ReadonlyMap<string, readonly number[]>): void {
    for (const [kind, amounts] of back) {
      const counts = this.#counts.get(kind);
      if (counts === undefined) this.#counts.set(kind, [...amounts]);
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
