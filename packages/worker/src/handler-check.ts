import { isAbsolute } from 'node:path';
import { InvalidArgumentError, type Kinds } from '@jobs/core';
import { assertOptionKeys, assertWholeNumber, type OptionKeys } from '@jobs/core/internal';
import type { BatchHandlerEntry, BatchOptions, HandlerMap } from './handler-map.ts';
import type { IsolatedHandlerEntry } from './isolate/isolated-handler.ts';
import { moduleUrlOf, type CheckedIsolation } from './isolate/isolated-pools.ts';

/** A kind's batch options with their defaults filled in. */
export interface BatchLimits {
  readonly size: number;
  readonly minSize: number;
  readonly maxWaitMs: number;
}

const ENTRY_KEYS: OptionKeys<BatchHandlerEntry<unknown>> = { handler: true, batch: true };
const BATCH_KEYS: OptionKeys<BatchOptions> = { size: true, minSize: true, maxWaitMs: true };
const ISOLATED_KEYS: OptionKeys<IsolatedHandlerEntry> = { isolate: true, module: true, pool: true, memoryMb: true, graceMs: true };

/**
 * Checks a worker's handler map against its kinds: one entry per kind, each a function,
 * `{ handler, batch }` with valid batch options (a batch fits in the worker's `concurrency`), or
 * `{ isolate, module, ... }` (see {@link checkIsolatedEntry}).
 * Throws `InvalidArgumentError` naming the field; returns the batch kinds' limits.
 */
export function checkHandlers<P>(kinds: Kinds<P>, handlers: HandlerMap<P>, concurrency: number): Map<string, BatchLimits> {
  if (typeof handlers !== 'object' || handlers === null) throw new InvalidArgumentError('handlers', 'expected an object with one handler per kind');
  const entries = handlers as Record<string, unknown>;
  const batches = new Map<string, BatchLimits>();
  for (const kind of kinds.names) {
    const entry = entries[kind];
    if (typeof entry === 'function') continue;
    if (typeof entry !== 'object' || entry === null) throw new InvalidArgumentError(`handlers.${kind}`, `no handler for kind "${kind}"`);
    if ('isolate' in entry) checkIsolatedEntry(`handlers.${kind}`, entry, concurrency);
    else batches.set(kind, checkBatchEntry(`handlers.${kind}`, entry, concurrency));
  }
  for (const key of Object.keys(entries)) {
    if (!kinds.has(key)) throw new InvalidArgumentError(`handlers.${key}`, `"${key}" is not a kind of this queue (${kinds.names.join(', ')})`);
  }
  return batches;
}

/** Checks one `{ handler, batch }` entry (see {@link checkHandlers}). */
function checkBatchEntry(field: string, entry: object, concurrency: number): BatchLimits {
  const { handler, batch } = assertOptionKeys(field, entry, ENTRY_KEYS);
  if (typeof handler !== 'function') throw new InvalidArgumentError(`${field}.handler`, 'expected a function (jobs, batch) => results');
  if (batch === undefined) throw new InvalidArgumentError(`${field}.batch`, 'expected { size, minSize?, maxWaitMs } (a function alone runs one job at a time)');
  const { size, minSize = 1, maxWaitMs } = assertOptionKeys(`${field}.batch`, batch, BATCH_KEYS);
  assertWholeNumber(`${field}.batch.size`, size, 1, 10_000);
  if (size > concurrency) {
    throw new InvalidArgumentError(`${field}.batch.size`, `a batch of ${size} takes ${size} of the worker's slots, and its concurrency is ${concurrency}: raise concurrency or lower size`);
  }
  assertWholeNumber(`${field}.batch.minSize`, minSize, 1, size);
  assertWholeNumber(`${field}.batch.maxWaitMs`, maxWaitMs, 0, 3_600_000);
  return { size, minSize, maxWaitMs };
}

/** The isolated kinds of a handler map checked by {@link checkHandlers}, each with its options. */
export function isolatedEntries<P>(kinds: Kinds<P>, handlers: HandlerMap<P>, concurrency: number): Map<string, CheckedIsolation> {
  const isolated = new Map<string, CheckedIsolation>();
  for (const kind of kinds.names) {
    const entry = (handlers as Record<string, unknown>)[kind];
    if (typeof entry === 'object' && entry !== null && 'isolate' in entry) isolated.set(kind, checkIsolatedEntry(`handlers.${kind}`, entry, concurrency));
  }
  return isolated;
}

/**
 * Checks one `{ isolate, module, pool?, memoryMb?, graceMs? }` entry: `module` an absolute path
 * or a `file:` URL (a relative path would hang on the process's working directory), `pool` at
 * most the worker's `concurrency` (more children would never all have a job).
 */
export function checkIsolatedEntry(field: string, entry: object, concurrency: number): CheckedIsolation {
  const { isolate, module, pool, memoryMb, graceMs = 1_000 } = assertOptionKeys(field, entry, ISOLATED_KEYS);
  if (isolate !== 'thread' && isolate !== 'process') throw new InvalidArgumentError(`${field}.isolate`, `expected 'thread' or 'process', got ${JSON.stringify(isolate) ?? typeof isolate}`);
  const relative = "write new URL('./handler.js', import.meta.url): a relative path would depend on the process's working directory";
  if (module instanceof URL) {
    if (module.protocol !== 'file:') throw new InvalidArgumentError(`${field}.module`, `expected a file: URL, got a ${module.protocol} one`);
  } else if (typeof module !== 'string' || module === '') {
    throw new InvalidArgumentError(`${field}.module`, `expected an absolute path or a file: URL of the handler's module, got ${typeof module === 'string' ? 'an empty string' : typeof module}`);
  } else if (module.startsWith('file:')) {
    if (!URL.canParse(module)) throw new InvalidArgumentError(`${field}.module`, `${JSON.stringify(module)} is not a valid file: URL`);
  } else if (!isAbsolute(module)) {
    throw new InvalidArgumentError(`${field}.module`, `${JSON.stringify(module)} is relative; ${relative}`);
  }
  if (pool !== undefined) {
    assertWholeNumber(`${field}.pool`, pool, 1, 10_000);
    if (pool > concurrency) throw new InvalidArgumentError(`${field}.pool`, `a pool of ${pool} children never has more than the worker's concurrency (${concurrency}) jobs to run: raise concurrency or lower pool`);
  }
  if (memoryMb !== undefined) assertWholeNumber(`${field}.memoryMb`, memoryMb, 16, 1_048_576);
  assertWholeNumber(`${field}.graceMs`, graceMs, 0, 3_600_000);
  return { isolation: isolate, moduleUrl: moduleUrlOf(module), size: pool, memoryMb, graceMs };
}
