/** One look at the awaited state: either it is there (with a value), or why it is not yet. */
export type Check<T> = { readonly done: true; readonly value: T } | { readonly done: false; readonly reason: string };

/**
 * Polls `check` every `intervalMs` until it says done, and resolves with its value; rejects once
 * `timeoutMs` have passed, naming `what` and the last reason. A check that throws counts as "not
 * yet" (a node can drop a connection mid-poll while the cluster reconfigures), and its message
 * becomes the reason.
 */
export async function waitUntil<T>(what: string, timeoutMs: number, check: () => Promise<Check<T>>, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let reason: string;
  for (;;) {
    try {
      const seen = await check();
      if (seen.done) return seen.value;
      reason = seen.reason;
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= deadline) throw new Error(`${what}: not within ${timeoutMs} ms (last seen: ${reason})`);
    // The pause only spaces out the polls; the check above is what decides.
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
