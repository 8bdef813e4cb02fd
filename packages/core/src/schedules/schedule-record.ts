import type { ScheduleJobOptions } from './schedule-spec.ts';

/** Where a schedule stands: running its ticks, paused, or done (its limit reached, or no run left). */
export type ScheduleStatus = 'active' | 'paused' | 'done';

/** A schedule as stored, for {@link Schedules.list} and {@link Schedules.get}. Times are ms since the epoch, on the Redis clock. */
export interface ScheduleRecord {
  readonly id: string;
  readonly kind: string;
  /** The payload each tick's job gets. */
  readonly payload: unknown;
  /** The cron pattern, or undefined for an interval. */
  readonly cron: string | undefined;
  /** The pattern's time zone, when one was given. */
  readonly tz: string | undefined;
  /** The interval in ms, or undefined for a cron pattern. */
  readonly every: number | undefined;
  readonly startAt: number | undefined;
  readonly endAt: number | undefined;
  /** The most runs, or undefined for no limit. */
  readonly limit: number | undefined;
  /** Ticks run so far. */
  readonly runs: number;
  readonly status: ScheduleStatus;
  /** The next tick, or null when paused or done. */
  readonly nextRunAt: number | null;
  /** The last tick run, and the id of its job. */
  readonly lastRunAt: number | null;
  readonly lastJobId: string | undefined;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Changes with every change of the schedule (upsert, resume). */
  readonly revision: number;
  /**
   * The job options each tick's job gets: the schedule's own, else its kind's defaults at the
   * upsert; an option left at the queue's default (or none) is absent.
   */
  readonly options: ScheduleJobOptions;
}

/** The job options stored on a schedule's hash (absent fields: a schedule from before they were stored). */
function jobOptionsOf(f: Record<string, string>): ScheduleJobOptions {
  const maxAttempts = optionalNumber(f.max_attempts);
  const visibilityMs = optionalNumber(f.visibility_ms);
  // A hash written by hand may hold anything: only a whole number is a priority.
  const priority = Number.isInteger(Number(f.priority)) ? Number(f.priority) : 0;
  const group = optionalText(f.group);
  const ttlMs = optionalNumber(f.ttl_ms);
  // Written by the upsert as the option was given (a hash written by hand may hold anything).
  let dedupe: Pick<ScheduleJobOptions, 'dedupe' | 'unique'> = {};
  try {
    if (f.dedupe) dedupe = JSON.parse(f.dedupe) as typeof dedupe;
  } catch {
    dedupe = {};
  }
  return {
    ...dedupe,
    ...(priority !== 0 && { priority }),
    ...(group !== undefined && { group }),
    ...(maxAttempts !== undefined && { maxAttempts }),
    ...(visibilityMs !== undefined && { visibilityMs }),
    ...(ttlMs !== undefined && { ttlMs }),
  };
}

function optionalNumber(text: string | undefined): number | undefined {
  const value = Number(text ?? 0);
  return value > 0 ? value : undefined;
}

function optionalText(text: string | undefined): string | undefined {
  return text === undefined || text === '' ? undefined : text;
}

/** Reads a schedule's hash (as field/value pairs). */
export function parseScheduleRecord(pairs: readonly string[]): ScheduleRecord {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) f[pairs[i] as string] = pairs[i + 1] as string;
  let payload: unknown;
  try {
    payload = JSON.parse(f.payload ?? 'null');
  } catch {
    payload = f.payload;
  }
  const next = f.next_run_ms ?? '';
  return {
    id: f.id ?? '',
    kind: f.kind ?? '',
    payload,
    cron: optionalText(f.cron),
    tz: optionalText(f.tz),
    every: optionalNumber(f.every_ms),
    startAt: optionalNumber(f.start_at_ms),
    endAt: optionalNumber(f.end_at_ms),
    limit: optionalNumber(f.limit),
    runs: Number(f.runs ?? 0),
    status: (f.status ?? 'active') as ScheduleStatus,
    nextRunAt: next === '' ? null : Number(next),
    lastRunAt: f.last_run_ms ? Number(f.last_run_ms) : null,
    lastJobId: optionalText(f.last_job_id),
    createdAt: Number(f.created_at_ms ?? 0),
    updatedAt: Number(f.updated_at_ms ?? 0),
    revision: Number(f.revision ?? 0),
    options: jobOptionsOf(f),
  };
}
