import { performance } from 'node:perf_hooks';
import { assertOptionKeys } from '../option-keys.ts';
import { nextRunAfter } from './schedule-timing.ts';
import type { DueSchedule, FireResult, ScheduleStore } from './schedule-store.ts';

/** The runner's clock: a monotonic ms counter and a timer. Only waits use it; every decision uses Redis time. */
export interface RunnerClock {
  /** Monotonic ms (not the time of day). */
  now(): number;
  /** Calls `fn` after `ms`; returns a function that cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
}

/** The process's monotonic clock and `setTimeout`. */
export const systemClock: RunnerClock = {
  now: () => performance.now(),
  setTimer: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

/** A tick a runner ran. */
export interface FiredTick {
  readonly scheduleId: string;
  /** The tick (ms, Redis clock). */
  readonly tickMs: number;
  /** Redis time when its job was enqueued. */
  readonly firedAtMs: number;
  readonly jobId: string;
}

/** Options of {@link ScheduleRunner}. */
export interface ScheduleRunnerOptions {
  store: ScheduleStore;
  /** Default: the process's monotonic clock. */
  clock?: RunnerClock;
  /** Look at the due set at least this often, in case a wake was missed (ms). Default 5000. */
  recheckMs?: number;
  /** Wait after a failed call before trying again (ms). Default 1000. */
  retryMs?: number;
  /** Most schedules read per call. Default 100. */
  batch?: number;
  /** Hears every error (the runner keeps going). */
  onError?: (error: unknown) => void;
  /** Hears every tick this runner ran. */
  onFire?: (tick: FiredTick) => void;
}

/**
 * Keeps a queue's schedules running: reads when the next tick is due, sleeps until then with a
 * timer (woken sooner when a schedule changes), and fires the tick. Any number of runners may
 * run one queue: the fire is a check-and-set in Redis, so each tick makes one job whoever fires
 * it, and a runner that lost the race finds the tick moved and changes nothing. The following
 * run is computed here, from the tick and Redis time, never from this machine's clock.
 */
export class ScheduleRunner {
  readonly #store: ScheduleStore;
  readonly #clock: RunnerClock;
  readonly #recheckMs: number;
  readonly #retryMs: number;
  readonly #batch: number;
  readonly #onError: (error: unknown) => void;
  readonly #onFire: (tick: FiredTick) => void;
  #running: Promise<void> | undefined;
  #stopped = false;
  /** Ends the current sleep: set while sleeping. */
  #interrupt: (() => void) | undefined;
  /** A wake came while not sleeping: do not sleep before looking again. */
  #woken = false;
  #unwatch: (() => Promise<void>) | undefined;

  constructor(options: ScheduleRunnerOptions) {
    assertOptionKeys<ScheduleRunnerOptions>('options', options, { store: true, clock: true, recheckMs: true, retryMs: true, batch: true, onError: true, onFire: true });
    this.#store = options.store;
    this.#clock = options.clock ?? systemClock;
    this.#recheckMs = options.recheckMs ?? 5_000;
    this.#retryMs = options.retryMs ?? 1_000;
    this.#batch = options.batch ?? 100;
    this.#onError = options.onError ?? (() => undefined);
    this.#onFire = options.onFire ?? (() => undefined);
  }

  /** Starts running ticks (and listening for changes). */
  start(): void {
    if (this.#running || this.#stopped) return;
    this.#unwatch = this.#store.watch?.(() => this.wake(), this.#onError);
    this.#running = this.#loop();
  }

  /** Looks at the schedules again now: a schedule was created, changed or resumed. */
  wake(): void {
    this.#woken = true;
    this.#interrupt?.();
  }

  /** Stops; waits for a call in flight (a fire either ran whole or not at all). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#interrupt?.();
    await this.#running;
    await this.#unwatch?.();
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      /** The ticks to fire when the sleep ends on time. */
      let upcoming: DueSchedule[];
      let waitMs: number;
      try {
        ({ waitMs, upcoming } = await this.#pass());
      } catch (error) {
        this.#onError(error);
        waitMs = this.#retryMs;
        upcoming = [];
      }
      if (this.#stopped) break;
      const onTime = waitMs <= this.#recheckMs;
      const interrupted = await this.#sleep(Math.min(waitMs, this.#recheckMs));
      if (this.#stopped || interrupted || !onTime || upcoming.length === 0) continue;
      // Due now: fire at once with what was read, rather than read again first (one round trip less).
      try {
        await Promise.all(upcoming.map((schedule) => this.#fire(schedule, schedule.nextRunMs)));
      } catch (error) {
        this.#onError(error);
      }
    }
  }

  /**
   * Fires every due tick, then says how long until the next one (ms on this clock) and which
   * schedules it is for.
   */
  async #pass(): Promise<{ waitMs: number; upcoming: DueSchedule[] }> {
    // Bounded: a schedule that stays due whatever is fired (it cannot, but a hot loop would hurt Redis) waits like an error.
    for (let round = 0; round < 20; round += 1) {
      this.#woken = false;
      const { nowMs, schedules } = await this.#store.due(this.#batch);
      const readAt = this.#clock.now();
      const due = schedules.filter((schedule) => schedule.nextRunMs <= nowMs);
      if (due.length > 0) {
        // Several ticks at once; whatever happened to each, read again: their next runs moved.
        const results = await Promise.allSettled(due.map((schedule) => this.#fire(schedule, nowMs)));
        for (const result of results) if (result.status === 'rejected') throw result.reason;
        if (this.#stopped) return { waitMs: 0, upcoming: [] };
        continue;
      }
      const head = schedules[0];
      if (!head) return { waitMs: Number.POSITIVE_INFINITY, upcoming: [] };
      const upcoming = schedules.filter((schedule) => schedule.nextRunMs === head.nextRunMs);
      return { waitMs: Math.max(0, head.nextRunMs - nowMs - (this.#clock.now() - readAt)), upcoming };
    }
    return { waitMs: this.#retryMs, upcoming: [] };
  }

  /**
   * Fires `schedule`'s tick, computing the run after it from `baseMs` (Redis time) or the tick,
   * whichever is later. A catch-up (the tick after this one had passed by `baseMs`: ticks were
   * missed) makes the following run the first tick at least one period (the time from the tick
   * to the one after it) after the fire: the catch-up and a tick that happens to be due just
   * after it do not both run, which would make a restart run twice, by chance.
   */
  async #fire(schedule: DueSchedule, baseMs: number): Promise<FireResult> {
    let base = Math.max(schedule.nextRunMs, baseMs);
    const successor = nextRunAfter(schedule.timing, schedule.nextRunMs, schedule.nextRunMs);
    for (let attempt = 0; ; attempt += 1) {
      const gap = successor !== null && successor <= base ? successor - schedule.nextRunMs : 0;
      const following = nextRunAfter(schedule.timing, gap > 0 ? base + gap - 1 : base, schedule.nextRunMs);
      const result = await this.#store.fire(schedule, following, gap);
      if (result.outcome === 'fired' && result.jobId !== undefined) {
        this.#onFire({ scheduleId: schedule.id, tickMs: schedule.nextRunMs, firedAtMs: result.nowMs, jobId: result.jobId });
      }
      // Behind: the following run had passed by the time the script ran (this runner was slow).
      if (result.outcome !== 'behind' || attempt >= 3) return result;
      base = result.nowMs;
    }
  }

  /** Sleeps `ms` (forever: Infinity) unless woken or stopped; resolves true when cut short. */
  #sleep(ms: number): Promise<boolean> {
    if (this.#woken || this.#stopped) return Promise.resolve(true);
    return new Promise((resolve) => {
      const cancel = Number.isFinite(ms)
        ? this.#clock.setTimer(() => {
            this.#interrupt = undefined;
            resolve(false);
          }, ms)
        : () => undefined;
      this.#interrupt = () => {
        this.#interrupt = undefined;
        cancel();
        resolve(true);
      };
    });
  }
}
