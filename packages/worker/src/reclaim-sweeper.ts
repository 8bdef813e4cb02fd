import type { Logger } from '@jobs/core';
import type { Clock, TimerHandle } from './clock.ts';
import type { LaneQueue } from './lane-queue.ts';

/** Sweeps per lane and round at most: each is one bounded script call. */
const MAX_CALLS_PER_SWEEP = 10;

/**
 * The worker's reclaim timer: every `intervalMs` (with jitter, so that many workers do not all
 * sweep in the same millisecond) it hands the jobs of crashed workers, whose leases expired,
 * back to pending, so a fleet recovers them without a reclaimer daemon.
 */
export class ReclaimSweeper {
  readonly #queues: readonly LaneQueue[];
  readonly #intervalMs: number;
  readonly #clock: Clock;
  readonly #stop: AbortSignal;
  readonly #log: Logger;
  readonly #reportError: (error: unknown, message: string) => void;
  #timer: TimerHandle | undefined;
  #sweeping: Promise<void> | undefined;

  /** Sweeps `queues` every `intervalMs` (0: never) until `stop` aborts. */
  constructor(queues: readonly LaneQueue[], intervalMs: number, clock: Clock, stop: AbortSignal, log: Logger, reportError: (error: unknown, message: string) => void) {
    this.#queues = queues;
    this.#intervalMs = intervalMs;
    this.#clock = clock;
    this.#stop = stop;
    this.#log = log;
    this.#reportError = reportError;
    if (intervalMs > 0) this.#schedule();
  }

  /** No sweep starts from now on (the stop signal has aborted). */
  cancelNext(): void {
    this.#clock.clearTimeout(this.#timer);
  }

  /** Settles when the sweep in flight, if any, has ended. */
  async ended(): Promise<void> {
    await this.#sweeping;
  }

  #schedule(): void {
    if (this.#stop.aborted) return;
    const delay = Math.round(this.#intervalMs * (0.75 + Math.random() * 0.5));
    this.#timer = this.#clock.setTimeout(() => {
      this.#sweeping = this.#sweep().finally(() => {
        this.#sweeping = undefined;
        this.#schedule();
      });
    }, delay);
  }

  /** One opportunistic sweep of every lane (a few bounded calls each at most). */
  async #sweep(): Promise<void> {
    for (const queue of this.#queues) {
      try {
        for (let call = 0; call < MAX_CALLS_PER_SWEEP && !this.#stop.aborted; call += 1) {
          const result = await queue.reclaimStuck();
          if (result.reclaimed.length + result.deadLettered.length > 0) {
            this.#log.info({ partition: queue.name, reclaimed: result.reclaimed.length, deadLettered: result.deadLettered.length }, 'reclaimed jobs with expired leases');
          }
          if (!result.more) break;
        }
      } catch (error) {
        if (!this.#stop.aborted) this.#reportError(error, 'reclaim sweep failed');
      }
    }
  }
}
