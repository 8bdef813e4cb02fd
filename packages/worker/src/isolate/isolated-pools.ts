import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { WorkerContext } from '../worker-context.ts';
import { IsolatedPool, type PoolOptions } from './pool.ts';

/** A kind's handler entry once checked: one of the isolated ones. */
export interface CheckedIsolation extends Omit<PoolOptions, 'kind' | 'moduleUrl' | 'size'> {
  /** The module's `file:` URL. */
  readonly moduleUrl: string;
  /** The pool's size, or undefined for the default. */
  readonly size: number | undefined;
}

/** The pool per isolated kind. */
export interface IsolatedPools {
  /** Per isolated kind, its pool. */
  readonly pools: Readonly<Record<string, IsolatedPool>>;
  /** Ends every child (after the worker handed back or finished its jobs). */
  close(): Promise<void>;
}

/** The `file:` URL of a module given as an absolute path or a `file:` URL (checked by handler-check.ts). */
export function moduleUrlOf(module: string | URL): string {
  if (module instanceof URL) return module.href;
  return module.startsWith('file:') ? new URL(module).href : pathToFileURL(module).href;
}

/**
 * Makes a pool for each isolated kind; undefined when there is none, so a worker without isolated
 * kinds does nothing more per job.
 */
export function openIsolatedPools(isolated: ReadonlyMap<string, CheckedIsolation>, concurrency: number, context: WorkerContext): IsolatedPools | undefined {
  if (isolated.size === 0) return undefined;
  const pools: Record<string, IsolatedPool> = {};
  for (const [kind, options] of isolated) {
    const size = options.size ?? Math.min(concurrency, availableParallelism());
    const pool = new IsolatedPool({ ...options, kind, size }, { clock: context.clock, log: context.log, reportError: context.reportError });
    pools[kind] = pool;
  }
  return { pools, close: () => Promise.all(Object.values(pools).map((pool) => pool.close())).then(() => undefined) };
}
