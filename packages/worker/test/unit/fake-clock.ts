import type { Clock, TimerHandle } from '../../src/clock.ts';

interface FakeTimer {
  readonly at: number;
  readonly ms: number;
  readonly callback: () => void;
}

/**
 * A clock that moves only when told: {@link advance} fires the timers that come due, in order.
 * Every delay asked for is kept in {@link asked}, so a test can read the waits the worker chose.
 */
export class FakeClock implements Clock {
  #now = 1_700_000_000_000;
  readonly #timers = new Map<object, FakeTimer>();
  /** Every `setTimeout` delay asked for, in order. */
  readonly asked: number[] = [];

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const handle = {};
    this.#timers.set(handle, { at: this.#now + ms, ms, callback });
    this.asked.push(ms);
    return handle;
  }

  clearTimeout(timer: TimerHandle | undefined): void {
    if (typeof timer === 'object') this.#timers.delete(timer);
  }

  /** The delays (as asked) of the timers still set, shortest due first. */
  pending(): number[] {
    return [...this.#timers.values()].sort((a, b) => a.at - b.at).map((timer) => timer.ms);
  }

  /** Moves time on by `ms`, firing each timer due by then at its own time. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      let next: [object, FakeTimer] | undefined;
      for (const entry of this.#timers) if (entry[1].at <= until && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      this.#timers.delete(next[0]);
      this.#now = Math.max(this.#now, next[1].at);
      next[1].callback();
    }
    this.#now = until;
  }
}
