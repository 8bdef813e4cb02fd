import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Kinds } from '@jobs/core';
import { UsageError } from '../usage-error.ts';

/** What `jobsctl` uses of a kinds registry (duck-typed: the module may bring its own copy of @jobs/core). */
function isKinds(value: unknown): value is Kinds<unknown> {
  const candidate = value as Partial<Record<'has' | 'encode' | 'options' | 'validate', unknown>> & { names?: unknown } | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    Array.isArray(candidate.names) &&
    typeof candidate.has === 'function' &&
    typeof candidate.encode === 'function' &&
    typeof candidate.options === 'function' &&
    typeof candidate.validate === 'function'
  );
}

/**
 * Loads a queue's kinds from the operator's own module (`--kinds FILE`): its export `kinds`, or
 * its default export, made with `defineKinds`. The CLI has no kinds of its own (they live in the
 * application's code, not in Redis), so this is how a schedule's payload is checked against its
 * kind's schema. Throws {@link UsageError} when the file cannot be loaded or exports no kinds.
 */
export async function loadKinds(file: string, flag = '--kinds'): Promise<Kinds<unknown>> {
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' ? 'no such module' : (error as Error).message.split('\n')[0];
    throw new UsageError(`${flag}: cannot load ${file}: ${why}`);
  }
  const fallback = module.default as Record<string, unknown> | undefined;
  const kinds = [module.kinds, fallback, fallback?.kinds].find(isKinds);
  if (!kinds) throw new UsageError(`${flag}: ${file} exports no kinds: export them as "export const kinds = defineKinds({...})" or as the default export`);
  return kinds;
}
