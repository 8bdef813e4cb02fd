import type { QueueStats } from '@jobs/core';

/** One point of a queue's rate chart: jobs per second over the time since the point before. */
export interface RatePoint {
  /** Unix milliseconds (the Redis server's clock). */
  readonly atMs: number;
  readonly enqueuedPerSecond: number;
  readonly completedPerSecond: number;
  readonly failedPerSecond: number;
}

interface Sample {
  readonly atMs: number;
  readonly enqueued: number;
  readonly completed: number;
  readonly failed: number;
}

/**
 * The recent counters of each queue, sampled from its stats at most once per `minSpacingMs` and
 * kept to the last `size` samples, turned into rates for the chart. The counters live in Redis,
 * so the rates are the whole queue's, whichever process takes the samples.
 */
export class RateHistory {
  readonly #samples = new Map<string, Sample[]>();
  readonly #size: number;
  readonly #minSpacingMs: number;

  constructor(options: { size?: number; minSpacingMs?: number } = {}) {
    this.#size = options.size ?? 120;
    this.#minSpacingMs = options.minSpacingMs ?? 1_000;
  }

  /** Adds a sample unless the last one is younger than the spacing. */
  record(queue: string, stats: QueueStats): void {
    let samples = this.#samples.get(queue);
    if (!samples) this.#samples.set(queue, (samples = []));
    const last = samples.at(-1);
    if (last && stats.nowMs - last.atMs < this.#minSpacingMs) return;
    // Failed attempts that were retried count as failures too: the chart shows errors happening.
    samples.push({ atMs: stats.nowMs, enqueued: stats.enqueuedTotal, completed: stats.completedTotal, failed: stats.failedTotal + stats.retriedTotal });
    if (samples.length > this.#size + 1) samples.shift();
  }

  /** The rates between consecutive samples, oldest first. A counter that went down (a purge) reads 0. */
  points(queue: string): RatePoint[] {
    const samples = this.#samples.get(queue) ?? [];
    const points: RatePoint[] = [];
    for (let i = 1; i < samples.length; i++) {
      const a = samples[i - 1] as Sample;
      const b = samples[i] as Sample;
      const seconds = Math.max(0.001, (b.atMs - a.atMs) / 1000);
      const rate = (x: number, y: number): number => Math.round((Math.max(0, y - x) / seconds) * 100) / 100;
      points.push({ atMs: b.atMs, enqueuedPerSecond: rate(a.enqueued, b.enqueued), completedPerSecond: rate(a.completed, b.completed), failedPerSecond: rate(a.failed, b.failed) });
    }
    return points;
  }

  /** Forgets queues that are no longer shown. */
  keepOnly(queues: readonly string[]): void {
    for (const queue of this.#samples.keys()) if (!queues.includes(queue)) this.#samples.delete(queue);
  }
}
