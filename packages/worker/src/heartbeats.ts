import type { Clock, TimerHandle } from './clock.ts';

/** How a worker's heartbeats reach its queue's registry (see `sendHeartbeat` in core). */
export interface HeartbeatSink {
  /**
   * Says the worker is alive, running the jobs `running` (ids), for three intervals from now;
   * `startedAtMs` is the Redis time its first heartbeat replied (undefined for that first one).
   * Resolves with the Redis time of this heartbeat.
   */
  beat(running: readonly string[], startedAtMs: number | undefined): Promise<{ nowMs: number }>;
  /** Takes the worker out of the registry at once. */
  leave(): Promise<unknown>;
}

/** What a {@link Heartbeats} runs on. */
export interface HeartbeatsOptions {
  readonly sink: HeartbeatSink;
  readonly clock: Clock;
  /** Between the end of one heartbeat and the next (ms). */
  readonly intervalMs: number;
  /** The ids of the jobs running now, read at each heartbeat (nothing is kept per job). */
  runningIds(): readonly string[];
  /** Hears a heartbeat that failed; the next one is still sent. */
  onError(error: unknown): void;
}

/**
 * A worker's heartbeats into its queue's registry: the first at once, then one every
 * `intervalMs` after the previous one ended, so a slow Redis never has two in flight. They go on
 * while the worker closes (its running jobs may outlast a TTL); {@link stop} ends them and takes
 * the worker out of the registry, after the last one in flight, so that none lands after it.
 */
export class Heartbeats {
  readonly #options: HeartbeatsOptions;
  #timer: TimerHandle | undefined;
  #inFlight: Promise<void> | undefined;
  #startedAtMs: number | undefined;
  #stopped = false;
  /** {@link beatSoon} was called while a heartbeat was in flight: another follows it at once. */
  #again = false;

  constructor(options: HeartbeatsOptions) {
    this.#options = options;
    this.#beat();
  }

  #beat(): void {
    const { sink, runningIds, onError } = this.#options;
    this.#inFlight = sink
      .beat(runningIds(), this.#startedAtMs)
      .then(
        ({ nowMs }) => {
          this.#startedAtMs ??= nowMs;
        },
        (error: unknown) => {
          if (!this.#stopped) onError(error);
        },
      )
      .finally(() => {
        this.#inFlight = undefined;
        if (this.#stopped) return;
        if (this.#again) {
          this.#again = false;
          this.#beat();
        } else {
          this.#timer = this.#options.clock.setTimeout(() => this.#beat(), this.#options.intervalMs);
        }
      });
  }

  /**
   * Sends a heartbeat now (after the one in flight, if any) rather than at the next interval:
   * the worker's state changed (quiet, concurrency) and the registry should say so.
   */
  beatSoon(): void {
    if (this.#stopped) return;
    if (this.#inFlight !== undefined) {
      this.#again = true;
      return;
    }
    this.#options.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#beat();
  }

  /** Sends no more heartbeats, waits for the one in flight, then leaves the registry. Rejects if leaving fails. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#options.clock.clearTimeout(this.#timer);
    await this.#inFlight;
    await this.#options.sink.leave();
  }
}
