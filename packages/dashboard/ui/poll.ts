// One poller for the whole page: every view registers what it reads, and a poll reads them one
// after another. The next poll starts an interval after the last answer, so a slow server never
// gets a second request while one is in flight.

import { useEffect, useRef, useState } from 'preact/hooks';

type Loader = () => Promise<void>;

const loaders = new Map<number, Loader>();
let nextKey = 1;
let interval = 5_000;
let timer: ReturnType<typeof setTimeout> | undefined;
let running = false;
let again = false;
const tickListeners = new Set<(atMs: number, error: unknown) => void>();

async function run(): Promise<void> {
  clearTimeout(timer);
  timer = undefined;
  if (running) {
    // A poll is in flight: one more right after it, never a second one alongside.
    again = true;
    return;
  }
  running = true;
  let failure: unknown;
  for (const loader of [...loaders.values()]) {
    try {
      await loader();
    } catch (error) {
      failure ??= error;
    }
  }
  running = false;
  for (const listener of tickListeners) listener(Date.now(), failure);
  if (again) {
    again = false;
    void run();
  } else if (interval > 0) {
    timer = setTimeout(() => void run(), interval);
  }
}

/** Polls now (or right after the poll in flight), then on the interval. */
export function pollNow(): void {
  void run();
}

/** Sets the time from one answer to the next poll; 0 stops polling. */
export function setPollInterval(ms: number): void {
  interval = ms;
  if (!running) void run();
}

/** Calls `listener` after each poll with its time and its first error (undefined when none). */
export function onPolled(listener: (atMs: number, error: unknown) => void): () => void {
  tickListeners.add(listener);
  return () => tickListeners.delete(listener);
}

/** What a polled read holds: its last answer, and the error of its last poll. */
export interface Polled<T> {
  readonly data: T | undefined;
  readonly error: unknown;
}

/**
 * Reads `load()` on every poll while the calling view is shown, and at once when `deps` change.
 * `data` keeps the last answer for the same `deps` (the view does not flash while it polls).
 */
export function usePolled<T>(load: () => Promise<T>, deps: readonly unknown[]): Polled<T> {
  const [state, setState] = useState<Polled<T>>({ data: undefined, error: undefined });
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    setState({ data: undefined, error: undefined });
    const key = nextKey++;
    loaders.set(key, async () => {
      try {
        const data = await loadRef.current();
        if (live) setState({ data, error: undefined });
      } catch (error) {
        if (live) setState((before) => ({ data: before.data, error }));
        throw error;
      }
    });
    pollNow();
    return () => {
      live = false;
      loaders.delete(key);
    };
  }, deps);
  return state;
}
