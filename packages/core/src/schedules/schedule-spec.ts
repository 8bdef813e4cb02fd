import { latestTimeMs } from '../enqueue-options.ts';
import { InvalidArgumentError } from '../errors.ts';
import type { KindName, Kinds } from '../kinds.ts';
import { assertOptionKeys, type OptionKeys } from '../option-keys.ts';
import { assertWholeNumber } from '../whole-number.ts';
import { assertCron, assertTimeZone, MIN_EVERY_MS, type ScheduleTiming } from './schedule-timing.ts';

/** Schedule ids: 1 to 64 letters, digits, '.', '_' or '-' (no ':', which separates the id from the tick in job ids). */
export const SCHEDULE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** What every schedule has, whatever its timing. */
interface ScheduleBase {
  /** The schedule's id: upserting the same id replaces the schedule. */
  id: string;
  /** No run before this time (a Date, or ms since the epoch). An interval's ticks count from it. */
  startAt?: Date | number;
  /** No run at or after this time. */
  endAt?: Date | number;
  /** The most ticks to run, then the schedule is done. */
  limit?: number;
}

/** A schedule on a cron pattern. */
interface CronTiming {
  /** A cron pattern: 5 fields (minute first), or 6 with seconds first. DST is handled by croner. */
  cron: string;
  /** The IANA time zone the pattern is read in, e.g. "Europe/Paris". Default UTC. */
  tz?: string;
  every?: never;
}

/** A schedule on a fixed interval. */
interface IntervalTiming {
  /** The interval in ms, at least 1000. The first tick is one interval after the upsert, or at `startAt`. */
  every: number;
  cron?: never;
  tz?: never;
}

/**
 * A schedule for {@link Schedules.upsert}: a kind and its payload, enqueued as a job at every
 * tick of a cron pattern (with a time zone) or of a fixed interval.
 */
export type ScheduleSpec<P> = {
  [N in KindName<P>]: ScheduleBase & { kind: N; payload: P[N] } & (CronTiming | IntervalTiming);
}[KindName<P>];

/** A spec checked and encoded for the upsert script. */
export interface PreparedSchedule {
  readonly id: string;
  readonly timing: ScheduleTiming;
  /** Field/value pairs of the schedule's hash. */
  readonly fields: readonly string[];
}

/** Throws `JOBS_INVALID_ARGUMENT` (field `id`) unless `id` is a schedule id. */
export function assertScheduleId(id: unknown, field = 'id'): asserts id is string {
  if (typeof id !== 'string' || !SCHEDULE_ID_PATTERN.test(id)) {
    throw new InvalidArgumentError(field, `${JSON.stringify(id)} is not a schedule id (1 to 64 letters, digits, '.', '_' or '-')`);
  }
}

/** The keys of a {@link ScheduleSpec}: any other is refused. */
const SCHEDULE_SPEC_KEYS: OptionKeys<ScheduleBase & { kind: string; payload: unknown; cron?: string; tz?: string; every?: number }> = {
  id: true,
  kind: true,
  payload: true,
  cron: true,
  tz: true,
  every: true,
  startAt: true,
  endAt: true,
  limit: true,
};

/** A `startAt` or `endAt` in ms (0 when not given): bounded as an enqueue's `runAt` is, at most a year ahead. */
function timeOf(value: unknown, field: string): number {
  if (value === undefined) return 0;
  const ms = value instanceof Date ? value.getTime() : value;
  const latest = latestTimeMs();
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1 || ms > latest) {
    throw new InvalidArgumentError(field, `expected a Date or a whole number of ms since the epoch from 1 to a year from now (${latest}), got ${typeof ms === 'number' ? String(ms) : typeof ms === 'string' ? JSON.stringify(ms) : typeof value}`);
  }
  return ms;
}

/**
 * Checks and encodes a spec, writing nothing: the kind must be known and the payload valid
 * against its schema, the pattern and time zone readable, the interval at least `minEveryMs`.
 */
export function prepareSchedule<P>(spec: ScheduleSpec<P>, kinds: Kinds<P>, minEveryMs = MIN_EVERY_MS): PreparedSchedule {
  if (typeof spec !== 'object' || spec === null) throw new InvalidArgumentError('schedule', 'expected { id, kind, payload, cron | every, ... }');
  assertOptionKeys('', spec, SCHEDULE_SPEC_KEYS);
  const s = spec as ScheduleBase & { kind: KindName<P>; payload: unknown; cron?: unknown; tz?: unknown; every?: unknown };
  assertScheduleId(s.id);
  const payload = kinds.encode(s.kind, s.payload as P[KindName<P>], 'payload');
  const kindOptions = kinds.options(s.kind);
  let cron = '';
  let tz = '';
  let everyMs = 0;
  if ((s.cron === undefined) === (s.every === undefined)) throw new InvalidArgumentError('cron', 'give either cron (a pattern) or every (an interval in ms)');
  if (s.cron !== undefined) {
    if (typeof s.cron !== 'string') throw new InvalidArgumentError('cron', 'expected a cron pattern string');
    if (s.tz !== undefined) {
      if (typeof s.tz !== 'string') throw new InvalidArgumentError('tz', 'expected an IANA time zone name');
      assertTimeZone(s.tz);
      tz = s.tz;
    }
    cron = s.cron.trim();
    assertCron(cron, tz);
  } else {
    if (s.tz !== undefined) throw new InvalidArgumentError('tz', 'a time zone applies to a cron pattern only');
    everyMs = assertWholeNumber('every', s.every, minEveryMs, 366 * 86_400_000);
  }
  const startAtMs = timeOf(s.startAt, 'startAt');
  const endAtMs = timeOf(s.endAt, 'endAt');
  if (startAtMs > 0 && endAtMs > 0 && endAtMs <= startAtMs) throw new InvalidArgumentError('endAt', 'must be after startAt');
  const limit = s.limit === undefined ? 0 : assertWholeNumber('limit', s.limit, 1, 1_000_000_000);
  const timing: ScheduleTiming = { cron, tz, everyMs, startAtMs, endAtMs };
  const fields = [
    'kind', s.kind, 'payload', payload, 'cron', cron, 'tz', tz, 'every_ms', String(everyMs), 'start_at_ms', String(startAtMs),
    'end_at_ms', String(endAtMs), 'limit', String(limit), 'max_attempts', String(kindOptions.maxAttempts ?? 0), 'visibility_ms', String(kindOptions.visibilityMs ?? 0),
  ];
  return { id: s.id, timing, fields };
}
