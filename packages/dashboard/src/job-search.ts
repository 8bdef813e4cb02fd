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
  /** Only jobs whose last error has this code (see {@link errorCodeOf}). */
  readonly code?: string;
  /** Only jobs whose id contains this text. */
  readonly id?: string;
  /** Only jobs whose stored payload contains this text (case-insensitive). */
  readonly text?: string;
  /** Only jobs whose time in this state ({@link JobSummary.atMs}) is at or after this (Unix ms). */
  readonly fromMs?: number;
  /** ...and at or before this (Unix ms). */
  readonly toMs?: number;
}

/** The query's filter keys: a query with any of them set is a bounded scan. */
export const FILTER_KEYS = ['kind', 'field', 'value', 'code', 'id', 'text', 'fromMs', 'toMs'] as const;

/** A job as a list row shows it: times a `Date` holds (else null), texts cut to a row's size. */
export interface JobSummary {
  readonly id: string;
  readonly status: string;
  readonly kind: string | undefined;
  readonly attempts: number | null;
  readonly maxAttempts: number | null;
  readonly enqueuedAtMs: number | null;
  readonly lastError: string | undefined;
  /** The last error's code, when it has one (see {@link errorCodeOf}). */
  readonly errorCode: string | undefined;
  /** The time that places it in its state: failed, completed, run (delayed), claimed (running), else enqueued. */
  readonly atMs: number | null;
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

const ERROR_CODE = /^([A-Za-z][A-Za-z0-9_.-]{0,63}): /;

/**
 * The code of a job's last error: the hash's `last_error_code`, else the code of its error form
 * (`job.error`, core's `last_error_json`: a thrown error's `code`, else its class name), else the
 * `code` of a last error stored as JSON (`{ code, message }`), else the name before `: ` in
 * `Name: message` (a class name or a code, as core writes them); undefined for a bare message.
 */
export function errorCodeOf(job: JobRecord): string | undefined {
  const stored = job.fields.last_error_code;
  if (stored) return stored;
  const formCode = (job.error as { code?: unknown } | undefined)?.code;
  if (typeof formCode === 'string' && formCode !== '') return formCode;
  const text = job.lastError;
  if (!text) return undefined;
  if (text.startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as { code?: unknown };
      if (typeof parsed.code === 'string' && parsed.code !== '') return parsed.code;
    } catch {
      // Not JSON: a message that starts with a brace.
    }
  }
  return ERROR_CODE.exec(text)?.[1];
}

/** The time that places `job` in its state's list. */
function stateTime(job: JobRecord): number | undefined {
  switch (job.status) {
    case 'failed':
      return job.failedAtMs ?? job.lastErrorAtMs;
    case 'completed':
      return job.completedAtMs;
    case 'delayed':
      return job.runAtMs;
    case 'processing':
      return job.claimedAtMs;
    case 'cancelled':
      return job.cancelledAtMs;
    default:
      return job.enqueuedAtMs;
  }
}

/** The summary of a job for a list row. */
export function summarize(job: JobRecord): JobSummary {
  const code = errorCodeOf(job);
  return {
    id: clipText(job.id, NAME_CHARS),
    status: clipText(job.status, NAME_CHARS),
    kind: job.kind === undefined ? undefined : clipText(job.kind, NAME_CHARS),
    attempts: shownNumber(job.attempts),
    maxAttempts: shownNumber(job.maxAttempts),
    enqueuedAtMs: shownTime(job.enqueuedAtMs),
    lastError: preview(job.lastError),
    errorCode: code === undefined ? undefined : clipText(code, NAME_CHARS),
    atMs: shownTime(stateTime(job)),
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

/** True when `query` has a filter set. */
export function isFiltered(query: Partial<Pick<JobQuery, (typeof FILTER_KEYS)[number]>>): boolean {
  return FILTER_KEYS.some((key) => query[key] !== undefined);
}

/**
 * True when `job` passes the query's filters. A field's value matches as text, or as its JSON;
 * a time range needs the job's state time ({@link stateTime}) inside it.
 */
export function matches(job: JobRecord, query: Partial<Pick<JobQuery, (typeof FILTER_KEYS)[number]>>): boolean {
  if (query.kind !== undefined && job.kind !== query.kind) return false;
  if (query.code !== undefined && errorCodeOf(job) !== query.code) return false;
  if (query.id !== undefined && !job.id.includes(query.id)) return false;
  if (query.text !== undefined && !(job.rawPayload ?? '').toLowerCase().includes(query.text.toLowerCase())) return false;
  if (query.fromMs !== undefined || query.toMs !== undefined) {
    const at = stateTime(job);
    if (at === undefined || (query.fromMs !== undefined && at < query.fromMs) || (query.toMs !== undefined && at > query.toMs)) return false;
  }
  if (query.field !== undefined) {
    const value = valueAt(job.payload, query.field);
    if (value === undefined) return false;
    if (query.value !== undefined && !(typeof value === 'string' ? value === query.value : sameJson(value, query.value))) return false;
  }
  return true;
}

/**
 * A page of a state's list. Unfiltered it reads `limit` ids from `offset`. Filtered (kind, error
 * code, payload field, id or payload text, time range) it reads the `scanLimit` ids from `offset`, in chunks, and returns every match among
 * them: a bounded amount of work per request whatever the list's length, and `nextOffset` lets
 * the page scan the next window. Never a scan of the whole list. With `depth` null (not counted)
 * the list's end is where a read comes back short.
 */
export async function findJobs(source: DashboardDataSource, queue: string, query: JobQuery, depth: number | null, scanLimit: number): Promise<JobPage> {
  const filtered = isFiltered(query);
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
