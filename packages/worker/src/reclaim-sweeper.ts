import type { TimerHandle } from './clock.ts';
import type { LaneQueue } from './lane-queue.ts';
import type { WorkerContext } from './worker-context.ts';

/** Sweeps per lane and round at most: each is one bounded script call. */
const MAX_CALLS_PER_SWEEP = 10;

/**
 * The worker's reclaim timer: every `intervalMs` (with jitter, so that many workers do not all
 * sweep in the same millisecond) it hands the jobs of crashed workers, whose leases expired,
 * back to pending, so a fleet recovers them without a reclaimer daemon; and it moves back the
 * parked jobs of kinds that are no longer paused or limited (a resume or setLimits whose caller
 * died), which no claim would.
 */
export class ReclaimSweeper {
  readonly #context: WorkerContext;
  readonly #queues: readonly LaneQueue[];
  readonly #intervalMs: number;
  #timer: TimerHandle | undefined;
  #sweeping: Promise<void> | undefined;

  /** Sweeps `queues` every `intervalMs` (0: never) until the worker stops. */
  constructor(context: WorkerContext, queues: readonly LaneQueue[], intervalMs: number) {
    this.#context = context;
    this.#queues = queues;
    this.#intervalMs = intervalMs;
    if (intervalMs > 0) this.#schedule();
  }

  /** No sweep starts from now on (the stop signal has aborted). */
  cancelNext(): void {
    this.#context.clock.clearTimeout(this.#timer);
  }

  /** Settles when the sweep in flight, if any, has ended. */
  async ended(): Promise<void> {
    await this.#sweeping;
  }

  #schedule(): void {
    if (this.#context.stop.aborted) return;
    const delay = Math.round(this.#intervalMs * (0.75 + Math.random() * 0.5));
    this.#timer = this.#context.clock.setTimeout(() => {
      this.#sweeping = this.#sweep().finally(() => {
        this.#sweeping = undefined;
        this.#schedule();
      });
    }, delay);
  }

  /** One opportunistic sweep of every lane (a few bounded calls each at most). */
  async #sweep(): Promise<void> {
    const { stop, log } = this.#context;
    for (const queue of this.#queues) {
      try {
        for (let call = 0; call < MAX_CALLS_PER_SWEEP && !stop.aborted; call += 1) {
          const result = await queue.reclaimStuck();
          if (result.reclaimed.length + result.deadLettered.length > 0) {
            log.info({ partition: queue.name, reclaimed: result.reclaimed.length, deadLettered: result.deadLettered.length }, 'reclaimed jobs with expired leases');
          }
          if (!result.more) break;
        }
        for (let call = 0; call < MAX_CALLS_PER_SWEEP && !stop.aborted; call += 1) {
          const result = await queue.unparkFreed();
          if (result.unparked > 0) log.info({ partition: queue.name, unparked: result.unparked }, 'moved back parked jobs of kinds no longer paused or limited');
          if (!result.more) break;
        }
      } catch (error) {
        if (!stop.aborted) this.#context.reportError(error, 'reclaim sweep failed');
      }
    }
  }
}
