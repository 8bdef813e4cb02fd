/** A timer made by a {@link Clock}, given back to it to clear. */
export type TimerHandle = object | number;

/**
 * Time as the worker's scheduling sees it: read and waited on through this, so that the
 * scheduling logic runs under a fake clock in unit tests. Event-loop turns (`queueMicrotask`,
 * `setImmediate`) are not time and stay real.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once, `ms` from now. */
  setTimeout(callback: () => void, ms: number): TimerHandle;
  /** Cancels a timer of this clock's (nothing if it already fired or is undefined). */
  clearTimeout(timer: TimerHandle | undefined): void;
}

/** The real clock: `Date.now` and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout | undefined),
};

/** Waits `ms` on `clock`, or less if `signal` aborts or `until` settles first. */
export function pause(clock: Clock, ms: number, signal: AbortSignal, until?: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    const timer = clock.setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    void until?.then(done, done);
    function done(): void {
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
