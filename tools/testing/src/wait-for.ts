import { within } from './within.ts';

/** Options for {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this long. Default 10 s. */
  timeoutMs?: number;
  /** Time between polls. Default 10 ms. */
  intervalMs?: number;
  /** Said in the timeout error. */
  what?: string;
}

/**
 * Polls `probe` until it returns a value other than `undefined`, `null` or `false`, and returns it.
 * Throws once the deadline passes: a condition with a deadline, never a bare sleep. The deadline
 * holds even when a probe never answers (a Redis call that hangs): the error then says so.
 */
export async function waitFor<T>(probe: () => T | Promise<T>, options: WaitForOptions = {}): Promise<Exclude<T, undefined | null | false>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const what = options.what ?? 'condition';
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    const answer = probe();
    last = answer instanceof Promise ? await within(answer, Math.max(0, deadline - Date.now()) + 50, () => `waitFor: ${what}: the probe had not answered ${timeoutMs} ms after the wait began (last value: ${String(last)})`) : await answer;
    if (last !== undefined && last !== null && last !== false) return last as Exclude<T, undefined | null | false>;
    if (Date.now() > deadline) {
      throw new Error(`waitFor: ${what} not met within ${timeoutMs} ms (last value: ${String(last)})`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 10));
  }
}
