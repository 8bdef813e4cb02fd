import { assertOptionKeys } from '@jobs/core/internal';
import type { Worker } from './worker.ts';

/** Options of {@link closeOnSignals}. */
export interface CloseOnSignalsOptions {
  /** Passed to `worker.close()`. Default 30 s. */
  graceMs?: number;
  /** Default `['SIGTERM', 'SIGINT']`. */
  signals?: readonly NodeJS.Signals[];
  /** Exit the process once the worker has closed (code 0, or 1 if closing failed). Default true. */
  exit?: boolean;
}

/**
 * Closes `worker` gracefully on SIGTERM or SIGINT (what Kubernetes, systemd and Ctrl-C send).
 * A second signal exits at once. Returns a function that removes the handlers.
 */
export function closeOnSignals(worker: Pick<Worker<unknown>, 'close'>, options: CloseOnSignalsOptions = {}): () => void {
  assertOptionKeys<CloseOnSignalsOptions>('options', options, { graceMs: true, signals: true, exit: true });
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const exit = options.exit ?? true;
  let closing = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) {
      process.exit(130);
    }
    closing = true;
    process.stderr.write(`received ${signal}: closing the worker (send it again to exit at once)\n`);
    worker.close({ ...(options.graceMs !== undefined && { graceMs: options.graceMs }) }).then(
      () => {
        if (exit) process.exit(0);
      },
      () => {
        if (exit) process.exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
