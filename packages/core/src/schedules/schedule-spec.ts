import { latestTimeMs, resolveEnqueueOptions, type EnqueueOptions } from '../enqueue-options.ts';
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
  /** The job options each tick's job gets, checked as `enqueue` checks them. */
  options?: ScheduleJobOptions;
}

/**
 * The options of `enqueue` that a schedule's jobs take: each tick's job gets them, with the
 * kind's defaults (as this queue's kinds define them at the upsert) where one is not given.
 * The others are the tick's own: `delayMs` and `runAt` (the tick says when the job runs),
 * `idempotencyKey` and `idempotencyTtlMs` (the job's id is made of the schedule's id and the
 * tick, so a tick makes one job), `expiresAt` (one time cannot hold for every tick: `ttlMs`
 * counts from each tick's enqueue) and `traceparent` (a tick belongs to no caller's trace).
 * `dedupe` (but its `debounce` mode: the schedule says when each job runs) and `unique` make a
 * tick whose key is held enqueue nothing: "at most one sync waiting or running", however often
 * the schedule fires.
 */
export type ScheduleJobOptions = Pick<EnqueueOptions, 'priority' | 'group' | 'maxAttempts' | 'visibilityMs' | 'ttlMs' | 'dedupe' | 'unique'>;

/** The keys of {@link ScheduleJobOptions}: any other is refused. */
const SCHEDULE_JOB_OPTION_KEYS: OptionKeys<ScheduleJobOptions> = { priority: true, group: true, maxAttempts: true, visibilityMs: true, ttlMs: true, dedupe: true, unique: true };

/** The enqueue options a tick sets itself, each refused on a schedule with the reason. */
const TICK_OPTIONS: Readonly<Record<string, string>> = {
  delayMs: 'the schedule says when each job runs',
  runAt: 'the schedule says when each job runs',
  idempotencyKey: "each tick's job has an id of its own (the schedule's id and the tick), so a tick makes one job",
  idempotencyTtlMs: "each tick's job has an id of its own (the schedule's id and the tick), so a tick makes one job",
  expiresAt: "one time cannot hold for every tick: give ttlMs, counted from each tick's enqueue",
  traceparent: 'a tick belongs to no caller\'s trace',
};

/** A schedule's checked job options, with the kind's defaults (0 or '' for none). */
function scheduleJobFields(options: unknown, kind: { maxAttempts?: number; visibilityMs?: number; priority?: number }, kindName: string): string[] {
  if (options !== undefined && typeof options === 'object' && options !== null) {
    for (const key of Object.keys(options)) {
      const why = TICK_OPTIONS[key];
      if (why !== undefined) throw new InvalidArgumentError(`options.${key}`, `a schedule does not take ${key}: ${why}`);
    }
  }
  if (options !== undefined) assertOptionKeys('options', options, SCHEDULE_JOB_OPTION_KEYS);
  const o = resolveEnqueueOptions(options as ScheduleJobOptions | undefined, 0, 'options');
  const d = o.dedupe;
  if (d !== undefined && d.debounceMs > 0) throw new InvalidArgumentError('options.dedupe.mode', "a schedule does not take mode 'debounce': the schedule says when each job runs");
  // The dedupe key by its name after the queue's prefix (scripts/lib/dedupe.lua), and the option as given, for the record.
  const given = options as ScheduleJobOptions | undefined;
  const dedupeFields = d === undefined
    ? ['dedupe', '', 'dedupe_name', '', 'dedupe_states', '', 'dedupe_period_ms', '', 'dedupe_replace', '']
    : ['dedupe', JSON.stringify(given?.dedupe !== undefined ? { dedupe: given.dedupe } : { unique: given?.unique }), 'dedupe_name', `${kindName}:${d.key}`, 'dedupe_states', d.states, 'dedupe_period_ms', String(d.periodMs), 'dedupe_replace', d.replace ? '1' : ''];
  return [
    ...dedupeFields,
    'max_attempts', String(o.maxAttempts ?? kind.maxAttempts ?? 0),
    'visibility_ms', String(o.visibilityMs ?? kind.visibilityMs ?? 0),
    'priority', String(o.priority ?? kind.priority ?? 0),
    'group', o.group ?? '',
    'ttl_ms', String(o.ttlMs),
  ];
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
  options: true,
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
  const s = spec as Omit<ScheduleBase, 'options'> & { kind: KindName<P>; payload: unknown; cron?: unknown; tz?: unknown; every?: unknown; options?: unknown };
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
    'end_at_ms', String(endAtMs), 'limit', String(limit), ...scheduleJobFields(s.options, kindOptions, s.kind),
  ];
  return { id: s.id, timing, fields };
}
