import { InvalidArgumentError, type Kinds } from '@jobs/core';
import { assertOptionKeys, assertWholeNumber, type OptionKeys } from '@jobs/core/internal';
import type { BatchHandlerEntry, BatchOptions, HandlerMap } from './handler-map.ts';

/** A kind's batch options with their defaults filled in. */
export interface BatchLimits {
  readonly size: number;
  readonly minSize: number;
  readonly maxWaitMs: number;
}

const ENTRY_KEYS: OptionKeys<BatchHandlerEntry<unknown>> = { handler: true, batch: true };
const BATCH_KEYS: OptionKeys<BatchOptions> = { size: true, minSize: true, maxWaitMs: true };

/**
 * Checks a worker's handler map against its kinds: one entry per kind, each a function or
 * `{ handler, batch }` with valid batch options (a batch fits in the worker's `concurrency`).
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
    batches.set(kind, checkBatchEntry(`handlers.${kind}`, entry, concurrency));
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
