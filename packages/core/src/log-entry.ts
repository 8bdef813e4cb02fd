/**
 * The entries of the durable event log (`queue:{NAME}:log`, see `QueueOptions.eventLog`), as
 * the scripts write them (scripts/lib/log-event.lua) and readers return them.
 */

/**
 * The state changes the scripts log. A flow's parent also logs `waiting-children` (enqueued
 * with children), `child-settled` (a child's outcome recorded; extra `child` and `status`) and
 * `children-done` (its last child settled: it is pending or delayed now). An operator's
 * `reprioritized` carries extra `priority`; `removed` is a job's last entry (its hash is gone);
 * `deduplicated` is logged on the job that absorbed an enqueue (its `dedupe` or `unique` key),
 * with extra `duplicate`, the id the absorbed enqueue would have had. Later features may add
 * their own.
 */
export type LogEventName =
  | 'enqueued'
  | 'claimed'
  | 'progress'
  | 'completed'
  | 'retried'
  | 'failed'
  | 'reclaimed'
  | 'cancelled'
  | 'expired'
  | 'promoted'
  | 'released'
  | 'snoozed'
  | 'handed-off'
  | 'redriven'
  | 'reprioritized'
  | 'removed'
  | 'deduplicated'
  | 'waiting-children'
  | 'child-settled'
  | 'children-done'
  | (string & {});

/** One state change of one job, from the event log. */
export interface LogEvent {
  readonly type: 'event';
  /** The stream entry id (`<ms>-<seq>`, Redis clock): the cursor to resume after it. */
  readonly id: string;
  /** When it happened, ms on the Redis clock (from the entry id). */
  readonly atMs: number;
  readonly jobId: string;
  readonly event: LogEventName;
  /** The attempt it concerns (0 before the first claim), or null when unknown. */
  readonly attempt: number | null;
  /** The id of the process that made the change (a worker's `workerId`), or null. */
  readonly worker: string | null;
  /** The error code of a failure or retry (an error's `code`, else its name), or null. */
  readonly code: string | null;
  /** Fields beyond the standard ones (a flow's parent, say), by name. */
  readonly extra: Readonly<Record<string, string>>;
}

/**
 * Delivered by a follower in place of events it can no longer read: the log (it is capped) was
 * trimmed past the follower's cursor. Events after `after` up to and including `through` are
 * lost to it; the follower goes on with the first event after `through`. A follower resumed
 * from an id it was given (not one it followed from its start) cannot count what was trimmed:
 * it reports a gap when the log no longer holds that id's entry.
 */
export interface LogGap {
  readonly type: 'gap';
  /** The follower's cursor when it found the gap: the last id it delivered (or started from). */
  readonly after: string;
  /** The id just before the oldest event the log still holds: the follower resumes after it. */
  readonly through: string;
}

/** What a follower delivers: an event, or a gap marker. */
export type LogItem = LogEvent | LogGap;

const STANDARD = new Set(['job', 'event', 'attempt', 'worker', 'code']);

/** Reads one stream entry: its id and its flat field/value list. */
export function parseLogEntry(id: string, fields: readonly string[], start = 0): LogEvent {
  const values: Record<string, string> = {};
  const extra: Record<string, string> = {};
  for (let i = start; i + 1 < fields.length; i += 2) {
    const name = fields[i] as string;
    const value = fields[i + 1] as string;
    if (STANDARD.has(name)) values[name] = value;
    else extra[name] = value;
  }
  const attempt = values.attempt === undefined || values.attempt === '' ? null : Number(values.attempt);
  return {
    type: 'event',
    id,
    atMs: Number(id.split('-')[0]),
    jobId: values.job ?? '',
    event: values.event ?? '',
    attempt: attempt !== null && Number.isFinite(attempt) ? attempt : null,
    worker: values.worker ? values.worker : null,
    code: values.code ? values.code : null,
    extra,
  };
}

/** Compares two stream ids (`<ms>-<seq>`) numerically: negative, zero or positive. */
export function compareLogIds(a: string, b: string): number {
  const [aMs = '0', aSeq = '0'] = a.split('-');
  const [bMs = '0', bSeq = '0'] = b.split('-');
  const ms = BigInt(aMs) - BigInt(bMs);
  if (ms !== 0n) return ms < 0n ? -1 : 1;
  const seq = BigInt(aSeq) - BigInt(bSeq);
  return seq === 0n ? 0 : seq < 0n ? -1 : 1;
}

/** Stream ids: `<ms>-<seq>` or `<ms>`. */
export const LOG_ID_PATTERN = /^\d{1,20}(-\d{1,20})?$/;
