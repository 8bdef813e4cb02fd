import type { JobRecord, ListState } from '@jobs/core';
import type { DashboardDataSource } from './data-source.ts';
import { clipText, shownNumber, shownTime } from './shown-values.ts';

/** What the job list asks for: a page of one state, optionally filtered. */
export interface JobQuery {
  readonly state: ListState;
  readonly offset: number;
  readonly limit: number;
  /** Only jobs of this kind. */
  readonly kind?: string;
  /** Only jobs whose payload has this value at this field (a dotted path: `user.id`). */
  readonly field?: string;
  readonly value?: string;
}

/** A job as a list row shows it: times a `Date` holds (else null), texts cut to a row's size. */
export interface JobSummary {
  readonly id: string;
  readonly status: string;
  readonly kind: string | undefined;
  readonly attempts: number | null;
  readonly maxAttempts: number | null;
  readonly enqueuedAtMs: number | null;
  readonly lastError: string | undefined;
  readonly payloadPreview: string;
}

/** One page of a job list, and how much of the list it read to find it. */
export interface JobPage {
  readonly jobs: readonly JobSummary[];
  /** Where the page started in the list. */
  readonly offset: number;
  /** How many ids it read from the list: at most `limit` unfiltered, at most the scan limit filtered. */
  readonly scanned: number;
  /** Where the next page starts, or null at the end of the list. */
  readonly nextOffset: number | null;
  /** The list's length when the page was read, or null when the source could not count it. */
  readonly depth: number | null;
  /** True when a filter applied: the page holds every match among the `scanned` ids. */
  readonly filtered: boolean;
}

/** The most ids one read of a list returns (the data source's page limit). */
const READ_CHUNK = 1_000;
const PREVIEW_CHARS = 160;
/** Longer than any valid id, kind or status: a longer one, written by hand, is cut. */
const NAME_CHARS = 200;

function preview(text: string | undefined): string {
  return text ? clipText(text, PREVIEW_CHARS) : '';
}

/** The summary of a job for a list row. */
export function summarize(job: JobRecord): JobSummary {
  return {
    id: clipText(job.id, NAME_CHARS),
    status: clipText(job.status, NAME_CHARS),
    kind: job.kind === undefined ? undefined : clipText(job.kind, NAME_CHARS),
    attempts: shownNumber(job.attempts),
    maxAttempts: shownNumber(job.maxAttempts),
    enqueuedAtMs: shownTime(job.enqueuedAtMs),
    lastError: preview(job.lastError),
    payloadPreview: preview(job.rawPayload),
  };
}

/** The value at a dotted path of a parsed payload (own fields only: `constructor` is no field of `{}`). */
function valueAt(payload: unknown, path: string): unknown {
  let value = payload;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** True when `value` as JSON is `text`; false for a value too deeply nested to write as JSON. */
function sameJson(value: unknown, text: string): boolean {
  try {
    return JSON.stringify(value) === text;
  } catch {
    return false;
  }
}

/** True when `job` passes the query's filters. A field's value matches as text, or as its JSON. */
export function matches(job: JobRecord, query: Pick<JobQuery, 'kind' | 'field' | 'value'>): boolean {
  if (query.kind !== undefined && job.kind !== query.kind) return false;
  if (query.field !== undefined) {
    const value = valueAt(job.payload, query.field);
    if (value === undefined) return false;
    if (query.value !== undefined && !(typeof value === 'string' ? value === query.value : sameJson(value, query.value))) return false;
  }
  return true;
}

/**
 * A page of a state's list. Unfiltered it reads `limit` ids from `offset`. Filtered (kind, payload
 * field) it reads the `scanLimit` ids from `offset`, in chunks, and returns every match among
 * them: a bounded amount of work per request whatever the list's length, and `nextOffset` lets
 * the page scan the next window. Never a scan of the whole list. With `depth` null (not counted)
 * the list's end is where a read comes back short.
 */
export async function findJobs(source: DashboardDataSource, queue: string, query: JobQuery, depth: number | null, scanLimit: number): Promise<JobPage> {
  const filtered = query.kind !== undefined || query.field !== undefined;
  const end = depth ?? Number.MAX_SAFE_INTEGER;
  if (!filtered) {
    const jobs = query.offset < end ? await source.list(queue, query.state, { offset: query.offset, limit: query.limit }) : [];
    const next = query.offset + query.limit;
    const scanned = depth === null ? jobs.length : Math.max(0, Math.min(query.limit, depth - query.offset));
    const more = depth === null ? jobs.length === query.limit : next < depth;
    return { jobs: jobs.map(summarize), offset: query.offset, scanned, nextOffset: more ? next : null, depth, filtered };
  }
  const found: JobSummary[] = [];
  const stop = Math.min(end, query.offset + scanLimit);
  let at = query.offset;
  let ended = false;
  while (at < stop && !ended) {
    const limit = Math.min(READ_CHUNK, stop - at);
    const chunk = await source.list(queue, query.state, { offset: at, limit });
    for (const job of chunk) if (matches(job, query)) found.push(summarize(job));
    ended = depth === null && chunk.length < limit;
    at += ended ? chunk.length : limit;
  }
  return { jobs: found, offset: query.offset, scanned: at - query.offset, nextOffset: at < end && !ended ? at : null, depth, filtered };
}
