import type { BatchState } from '@jobs/core';
import { HttpError } from './http-io.ts';
import { clipText, shownNumber, shownTime } from './shown-values.ts';

/** The most characters of a batch id or a callback's job id a row shows. */
const NAME_CHARS = 200;
/** The batches a page lists unless `limit` says otherwise, and the most it may ask for. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1_000;
/** The callbacks in the order a row lists them. */
const CALLBACK_ORDER = ['success', 'complete', 'death'];

/** `?limit=` of the batches route: a whole number from 1 to {@link MAX_LIMIT}, default {@link DEFAULT_LIMIT}. */
export function batchesLimit(params: URLSearchParams): number {
  const raw = params.get('limit');
  if (raw === null || raw === '') return DEFAULT_LIMIT;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > MAX_LIMIT) throw new HttpError(400, 'bad_query', `limit must be a whole number from 1 to ${MAX_LIMIT}`);
  return limit;
}

/** Where a batch is: `open` (jobs may join), `sealed` (jobs still running), `finished` (its callbacks fired). */
function stateOf(batch: BatchState): 'open' | 'sealed' | 'finished' {
  if (batch.finished === true) return 'finished';
  return batch.sealed === true ? 'sealed' : 'open';
}

/**
 * A batch as its row shows it: counts and times a page can draw (else null), ids cut to a row's
 * size, and its callbacks in a fixed order, each with its job's id once fired (else null).
 */
export function shownBatch(batch: BatchState): Record<string, unknown> {
  const text = (value: unknown): string => clipText(String(value), NAME_CHARS);
  const callbacks = Object.entries(typeof batch.callbacks === 'object' && batch.callbacks !== null ? batch.callbacks : {})
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([name, jobId]) => ({ name: text(name), jobId: jobId === null || jobId === undefined ? null : text(jobId) }));
  return {
    id: text(batch.id),
    state: stateOf(batch),
    total: shownNumber(batch.total),
    succeeded: shownNumber(batch.succeeded),
    failed: shownNumber(batch.failed),
    cancelled: shownNumber(batch.cancelled),
    pending: shownNumber(batch.pending),
    createdAtMs: shownTime(batch.createdAtMs),
    sealedAtMs: shownTime(batch.sealedAtMs),
    finishedAtMs: shownTime(batch.finishedAtMs),
    callbacks,
  };
}

function rank(name: string): number {
  const index = CALLBACK_ORDER.indexOf(name);
  return index === -1 ? CALLBACK_ORDER.length : index;
}
