import { KIND_NAME_PATTERN, type QueueHistory } from '@jobs/core';
import type { HistoryQuery } from './data-source.ts';
import { HttpError } from './http-io.ts';
import { clipText } from './shown-values.ts';

/** The spans the history charts offer, by their `range` in the query. */
const RANGES = Object.freeze({ '1h': 3_600_000, '24h': 86_400_000, '14d': 1_209_600_000 } as const);

/** A range the charts offer: the last hour, day or 14 days. */
export type HistoryRange = keyof typeof RANGES;

/** A history route's query, checked: `range` one of 1h, 24h, 14d (default 1h), `kind` a kind name or absent. */
export function historyQuery(params: URLSearchParams): HistoryQuery & { readonly range: HistoryRange } {
  const range = params.get('range') ?? '1h';
  if (!Object.hasOwn(RANGES, range)) throw new HttpError(400, 'bad_query', `range must be one of ${Object.keys(RANGES).join(', ')}`);
  const kind = params.get('kind');
  if (kind !== null && kind !== '' && !KIND_NAME_PATTERN.test(kind)) throw new HttpError(400, 'bad_query', 'kind must be a kind name: a letter, then up to 63 letters, digits, "_", "." or "-"');
  return { range: range as HistoryRange, sinceMs: RANGES[range as HistoryRange], ...(kind !== null && kind !== '' && { kind }) };
}

/** The route's answer: the columns the charts draw (one entry per step, oldest first), kind names cut to a row's size. */
export function historyAnswer(queue: string, query: HistoryQuery & { readonly range: HistoryRange }, history: QueueHistory): Record<string, unknown> {
  return {
    queue,
    range: query.range,
    kind: query.kind ?? null,
    kinds: history.kinds.map((kind) => clipText(String(kind), 128)),
    stepMs: history.stepMs,
    atMs: history.atMs,
    enqueued: history.enqueued,
    completed: history.completed,
    failed: history.failed,
    retried: history.retried,
    runMsP50: history.runMsP50,
    runMsP95: history.runMsP95,
    runMsP99: history.runMsP99,
  };
}
