import type { JobContext } from '../handler-map.ts';
import { FORWARDED_LOG_LEVELS, FORWARDED_METHODS, FORWARDED_PROPERTIES, type ForwardedCall } from './protocol.ts';

const METHODS = new Set<string>(FORWARDED_METHODS);
const LEVELS = new Set<string>(FORWARDED_LOG_LEVELS);

/** The values of `ctx` the child's context starts with (protocol.ts's FORWARDED_PROPERTIES). */
export function contextValues(ctx: JobContext): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const name of FORWARDED_PROPERTIES) values[name] = ctx[name];
  return values;
}

/**
 * Runs a child's call on the job's real context: a forwarded method (its promise is the reply),
 * `log` (a line stored with the job) or `log.<level>` (the worker's logger, bound to the job).
 * Anything else is refused.
 */
export function callContext(ctx: JobContext, method: ForwardedCall, args: readonly unknown[]): unknown {
  if (method === 'log') return ctx.log(...args);
  if (method.startsWith('log.')) {
    const level = method.slice(4);
    if (!LEVELS.has(level)) throw new TypeError(`the isolated child called ctx.${method}, which is not forwarded`);
    return ctx.log[level as (typeof FORWARDED_LOG_LEVELS)[number]](args[0] as object, args[1] as string | undefined);
  }
  if (!METHODS.has(method)) throw new TypeError(`the isolated child called ctx.${method}, which is not forwarded`);
  return (ctx[method as (typeof FORWARDED_METHODS)[number]] as (...parts: unknown[]) => unknown).apply(ctx, args as unknown[]);
}
