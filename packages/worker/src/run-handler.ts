/** How one handler call ended. */
export type HandlerOutcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * Calls `handler` and settles with its outcome, or with the signal's reason as soon as `signal`
 * aborts (a timeout, a lost lease, a shutdown): JavaScript cannot stop a running function, so
 * the worker stops waiting for it and the handler is told through the same signal.
 */
export function runHandler(handler: () => unknown, signal: AbortSignal): Promise<HandlerOutcome> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve({ ok: false, error: signal.reason });
      return;
    }
    const onAbort = (): void => resolve({ ok: false, error: signal.reason });
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve()
      .then(handler)
      .then(
        (result: unknown) => resolve({ ok: true, result }),
        (error: unknown) => resolve({ ok: false, error }),
      )
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}
