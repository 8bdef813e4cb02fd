import { Cron } from 'croner';
import { InvalidArgumentError } from '../errors.ts';

/** When a schedule runs: a cron pattern in a time zone, or a fixed interval; within an optional window. */
export interface ScheduleTiming {
  /** A cron pattern (5 fields, or 6 with seconds first), evaluated by croner. '' for an interval. */
  readonly cron: string;
  /** The IANA time zone the pattern is read in ('' for UTC). */
  readonly tz: string;
  /** The interval in ms (0 for a cron pattern). */
  readonly everyMs: number;
  /** No run before this time (ms since the epoch; 0: none). An interval's ticks count from it. */
  readonly startAtMs: number;
  /** No run at or after this time (ms since the epoch; 0: none). */
  readonly endAtMs: number;
}

/** The smallest interval a schedule may have, in ms. */
export const MIN_EVERY_MS = 1_000;

const patterns = new Map<string, Cron>();

/** The parsed pattern (kept: a runner computes the next run of the same few patterns over and over). */
function cronOf(cron: string, tz: string): Cron {
  const key = `${tz} ${cron}`;
  let parsed = patterns.get(key);
  if (!parsed) {
    parsed = new Cron(cron, tz === '' ? {} : { timezone: tz });
    if (patterns.size >= 1_000) patterns.clear();
    patterns.set(key, parsed);
  }
  return parsed;
}

/** The text that identifies a timing: an upsert whose timing text is unchanged keeps the next run. */
export function timingText(timing: ScheduleTiming): string {
  return JSON.stringify([timing.cron, timing.tz, timing.everyMs, timing.startAtMs, timing.endAtMs]);
}

/**
 * The first run strictly after `afterMs`, or null when there is none (past the end, or a pattern
 * that never matches again). An interval counts its ticks from its start, else from `anchorMs`
 * (the tick being run, or the time of the upsert). Pure: every time comes from the caller, who
 * takes it from Redis, never from this machine's clock.
 */
export function nextRunAfter(timing: ScheduleTiming, afterMs: number, anchorMs: number): number | null {
  const after = timing.startAtMs > 0 ? Math.max(afterMs, timing.startAtMs - 1) : afterMs;
  let next: number | null;
  if (timing.everyMs > 0) {
    const anchor = timing.startAtMs > 0 ? timing.startAtMs : anchorMs;
    next = after < anchor ? anchor : anchor + timing.everyMs * (Math.floor((after - anchor) / timing.everyMs) + 1);
  } else {
    next = cronOf(timing.cron, timing.tz).nextRun(new Date(after))?.getTime() ?? null;
  }
  if (next === null || (timing.endAtMs > 0 && next >= timing.endAtMs)) return null;
  return next;
}

/** Throws `JOBS_INVALID_ARGUMENT` (field `tz`) unless `tz` names a time zone this runtime knows. */
export function assertTimeZone(tz: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw new InvalidArgumentError('tz', `unknown time zone ${JSON.stringify(tz)}: use an IANA name such as "Europe/Paris"`);
  }
}

/**
 * Throws `JOBS_INVALID_ARGUMENT` (field `cron`) unless `cron` is a pattern of 5 fields (minute
 * first) or 6 (seconds first) that croner reads. Croner also takes a 7th field (a year) and
 * nicknames such as `@daily`: both are refused, so that a pattern means what cron(5) says it
 * means and runs the same under any other cron reader.
 */
export function assertCron(cron: string, tz: string): void {
  if (cron.startsWith('@')) {
    throw new InvalidArgumentError('cron', `invalid cron pattern ${JSON.stringify(cron)}: nicknames are not supported; write the fields (e.g. "0 0 * * *" for @daily)`);
  }
  const fields = cron.split(/\s+/).filter((field) => field !== '').length;
  if (fields !== 5 && fields !== 6) {
    throw new InvalidArgumentError('cron', `invalid cron pattern ${JSON.stringify(cron)}: expected 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first, got ${fields}`);
  }
  try {
    cronOf(cron, tz);
  } catch (error) {
    throw new InvalidArgumentError('cron', `invalid cron pattern ${JSON.stringify(cron)}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
