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
 * Throws once the deadline passes: a condition with a deadline, never a bare sleep.
 */
export async function waitFor<T>(probe: () => T | Promise<T>, options: WaitForOptions = {}): Promise<Exclude<T, undefined | null | false>> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let last: T | undefined;
  for (;;) {
    last = await probe();
    if (last !== undefined && last !== null && last !== false) return last as Exclude<T, undefined | null | false>;
    if (Date.now() > deadline) {
      throw new Error(`waitFor: ${options.what ?? 'condition'} not met within ${options.timeoutMs ?? 10_000} ms (last value: ${String(last)})`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 10));
  }
}
