import type { JobContext } from '../handler-map.ts';
import type { FORWARDED_LOG_LEVELS, FORWARDED_METHODS, FORWARDED_PROPERTIES } from './protocol.ts';

/**
 * A kind whose handler runs in a child thread or process of its own, so that CPU-heavy or
 * memory-hungry work cannot starve the worker (its leases keep being renewed) and a handler past
 * its timeout can be stopped for real. See the README's "Isolated handlers".
 */
export interface IsolatedHandlerEntry {
  /** `'thread'`: a `node:worker_threads` Worker; `'process'`: a child Node process, with an IPC channel. */
  readonly isolate: 'thread' | 'process';
  /**
   * The handler's ES module: an absolute path, or a `file:` URL (`new URL('./thumbnail.js',
   * import.meta.url)`); a relative path is refused. Its default export (or its export named
   * `handler`) is an {@link IsolatedHandler}.
   */
  readonly module: string | URL;
  /**
   * The most children of this kind at once, each running one job at a time (jobs beyond wait for
   * a free child, their leases kept). Whole number from 1 to the worker's `concurrency`.
   * Default: the smaller of `concurrency` and `os.availableParallelism()`.
   */
  readonly pool?: number;
  /**
   * Each child's heap limit in MB (a thread's `resourceLimits.maxOldGenerationSizeMb`, a
   * process's `--max-old-space-size`): a child over it dies, and its job fails with
   * `JOBS_HANDLER_CRASHED`. Whole number from 16 to 1,048,576. Default: Node's.
   */
  readonly memoryMb?: number;
  /**
   * When a job's attempt is stopped (its kind's `timeoutMs`, counted from its start in a child;
   * a lost lease; the worker's shutdown past its grace period), the child's `ctx.signal` aborts, and a child that has not settled this
   * long after is ended and replaced. Whole ms from 0 to 3,600,000. Default 1,000.
   */
  readonly graceMs?: number;
}

/** `ctx.log` in an isolated handler: called, a line stored with the job; its methods log through the worker's logger, bound to the job. */
export type IsolatedLog = ((...parts: unknown[]) => void) & { readonly [L in (typeof FORWARDED_LOG_LEVELS)[number]]: (fields: object, message?: string) => void };

/**
 * What an isolated handler gets beside its payload: the job's values, a signal the worker aborts
 * (its reason a JobsError of the same code as in-process: match it with `isJobsError`), and the
 * context's methods, each a call to the worker that runs it on the job's real context.
 */
export type IsolatedContext<N extends string = string> = Pick<JobContext<N>, (typeof FORWARDED_PROPERTIES)[number] | (typeof FORWARDED_METHODS)[number] | 'signal'> & {
  readonly log: IsolatedLog;
};

/**
 * The default export (or `handler` export) of an isolated kind's module: returns the job's
 * result (carried back by structured clone, then stored as JSON) or throws (`PermanentError`,
 * `RateLimitedError` and the rest mean what they mean in-process).
 *
 * @example
 * ```ts
 * const handler: IsolatedHandler<{ url: string }> = async ({ url }, { signal }) => resize(url, signal);
 * export default handler;
 * ```
 */
export type IsolatedHandler<Payload, N extends string = string> = (payload: Payload, context: IsolatedContext<N>) => unknown;
