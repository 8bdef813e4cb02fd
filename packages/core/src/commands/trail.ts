import { clipUtf8, readErrorShape, storedError, type ErrorShape } from '../error-shape.ts';
import { LostClaimError } from '../errors.ts';
import { appendLogsScript } from '../generated/append-logs.ts';
import { attemptsScript } from '../generated/attempts.ts';
import { NOT_OWNER, TIMELINE_CAP } from '../generated/constants.ts';
import { jobLogsScript } from '../generated/job-logs.ts';
import { parseJobRecord, type ClaimedJob } from '../job-record.ts';
import { assertJobId } from '../keys.ts';
import { assertOptionKeys } from '../option-keys.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** How an attempt ended; `running` while it runs. */
export type AttemptOutcome = 'running' | 'completed' | 'retried' | 'failed' | 'reclaimed' | 'released' | 'rate_limited' | 'cancelled' | 'snoozed';

/** One attempt of a job (see {@link Queue.attempts}). Times are Unix ms on the Redis server's clock. */
export interface JobAttempt {
  /** Its number: the job's claim count when it was claimed (a released or rate-limited attempt does not count, so the next one has the same number). */
  readonly attempt: number;
  /** The id of the worker that claimed it (its `workerId`), when known: from the failing worker, else from the event log. */
  readonly workerId?: string;
  readonly claimedAtMs: number | null;
  readonly endedAtMs: number | null;
  /** `endedAtMs - claimedAtMs`, when both are known. */
  readonly durationMs: number | null;
  readonly outcome: AttemptOutcome;
  /** Its error, with its stack when one was stored. */
  readonly error?: ErrorShape;
}

/** A job's attempts, oldest first, and how many older ones the cap cut (see {@link Queue.attempts}). */
export interface JobAttempts {
  readonly jobId: string;
  readonly entries: JobAttempt[];
  readonly trimmed: number;
}

/** One log line of a job (see {@link Queue.logs}). */
export interface JobLogLine {
  /** When the handler logged it (ms, the worker's clock). */
  readonly atMs: number;
  /** The attempt that logged it. */
  readonly attempt?: number;
  readonly line: string;
}

/** A job's log lines, oldest first, and how many older ones were cut (see {@link Queue.logs}). */
export interface JobLogs {
  readonly jobId: string;
  readonly lines: JobLogLine[];
  readonly trimmed: number;
}

/** A line for {@link Queue.appendLogs}: its text and when it was logged (ms). */
export interface LogLineInput {
  readonly atMs: number;
  readonly line: string;
}

/** Lines read at most by one {@link Queue.logs} call. */
const LOGS_READ_MAX = 10_000;
const OUTCOMES = new Set<string>(['running', 'completed', 'retried', 'failed', 'reclaimed', 'released', 'rate_limited', 'cancelled', 'snoozed']);
const FIELDS = ['status', 'attempts', 'claimed_at_ms', 'first_claimed_at_ms', 'first_claim_token', 'claim_token', 'reclaimed_at_ms', 'completed_at_ms', 'failed_at_ms', 'last_error', 'last_error_at_ms', 'last_error_json', 'attempts_trimmed'] as const;

/** From the one context that holds the job, or (an id made elsewhere) the first of them that has it. */
async function fromHolders<P, T>(holders: readonly QueueContext<P>[], read: (ctx: QueueContext<P>) => Promise<T | null>): Promise<T | null> {
  if (holders.length === 1) return read(holders[0] as QueueContext<P>);
  const found = await Promise.all(holders.map(read));
  return found.find((value) => value !== null) ?? null;
}

const time = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null);

function readRecord(text: string): JobAttempt | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const r = value as Record<string, unknown>;
  if (typeof r.attempt !== 'number' || typeof r.outcome !== 'string' || !OUTCOMES.has(r.outcome)) return null;
  const claimedAtMs = time(r.claimedAtMs);
  const endedAtMs = time(r.endedAtMs);
  const error = readErrorShape(r.error);
  return {
    attempt: r.attempt,
    ...(typeof r.workerId === 'string' && r.workerId !== '' ? { workerId: r.workerId } : {}),
    claimedAtMs,
    endedAtMs,
    durationMs: claimedAtMs !== null && endedAtMs !== null ? Math.max(0, endedAtMs - claimedAtMs) : null,
    outcome: r.outcome as AttemptOutcome,
    ...(error !== undefined ? { error } : {}),
  };
}

/** The attempt the hash itself describes, when no record does: the running or completed one, or a recipe worker's failure. */
function lastAttempt(fields: Record<string, string>, records: readonly JobAttempt[]): JobAttempt | null {
  const job = parseJobRecord('', fields);
  const claimedAtMs = job.claimedAtMs ?? null;
  if (job.status === 'processing') return { attempt: job.attempts, claimedAtMs, endedAtMs: null, durationMs: null, outcome: 'running' };
  if (job.status === 'completed') {
    const endedAtMs = job.completedAtMs ?? null;
    return { attempt: job.attempts, claimedAtMs, endedAtMs, durationMs: claimedAtMs !== null && endedAtMs !== null ? Math.max(0, endedAtMs - claimedAtMs) : null, outcome: 'completed' };
  }
  const last = records.at(-1);
  const errorAt = job.lastErrorAtMs ?? job.failedAtMs ?? null;
  const error = storedError(job.lastError, fields.last_error_json);
  if (error === undefined || job.attempts === 0 || (last !== undefined && (errorAt === null || (last.endedAtMs ?? 0) >= errorAt))) return null;
  return { attempt: job.attempts, claimedAtMs: null, endedAtMs: errorAt, durationMs: null, outcome: job.status === 'failed' ? 'failed' : 'retried', error };
}

/** Fills in each attempt's worker from the claims the event log kept, matched from the newest back per attempt number. */
function withWorkers(entries: JobAttempt[], claims: readonly string[]): JobAttempt[] {
  const byAttempt = new Map<number, string[]>();
  for (let i = 0; i + 1 < claims.length; i += 2) {
    const attempt = Number(claims[i]);
    const list = byAttempt.get(attempt) ?? [];
    list.push(claims[i + 1] as string);
    byAttempt.set(attempt, list);
  }
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const entry = entries[i] as JobAttempt;
    const worker = byAttempt.get(entry.attempt)?.pop();
    if (entry.workerId === undefined && worker !== undefined && worker !== '') entries[i] = { ...entry, workerId: worker };
  }
  return entries;
}

/** See {@link Queue.attempts}. */
export function attempts<P>(holders: readonly QueueContext<P>[], id: string): Promise<JobAttempts | null> {
  assertJobId(id);
  return fromHolders(holders, async (ctx) => {
    const argv = attemptsScript.argv({ job: ctx.keys.job(id), attempts: ctx.keys.jobAttempts(id), log: ctx.keys.log }, { events: TIMELINE_CAP });
    const reply = await ctx.scripts.run(attemptsScript, argv);
    if (reply.length === 0) return null;
    const [values, records, claims] = reply as [Array<string | null>, string[], string[]];
    const fields: Record<string, string> = {};
    FIELDS.forEach((name, i) => {
      const value = values[i];
      if (typeof value === 'string') fields[name] = value;
    });
    const entries = records.map(readRecord).filter((entry): entry is JobAttempt => entry !== null);
    const last = lastAttempt(fields, entries);
    if (last !== null) entries.push(last);
    return { jobId: id, entries: withWorkers(entries, claims), trimmed: Number(fields.attempts_trimmed ?? 0) || 0 };
  });
}

/** See {@link Queue.logs}. */
export function logs<P>(holders: readonly QueueContext<P>[], id: string, options: { limit?: number } = {}): Promise<JobLogs | null> {
  assertJobId(id);
  assertOptionKeys<{ limit?: number }>('options', options, { limit: true });
  const limit = assertWholeNumber('limit', options.limit ?? LOGS_READ_MAX, 1, LOGS_READ_MAX);
  return fromHolders(holders, async (ctx) => {
    const argv = jobLogsScript.argv({ job: ctx.keys.job(id), logs: ctx.keys.jobLogs(id) }, { limit });
    const reply = await ctx.scripts.run(jobLogsScript, argv);
    if (reply.length === 0) return null;
    const [trimmed, skipped, ...stored] = reply as [number | string, number, ...string[]];
    const lines: JobLogLine[] = [];
    for (const text of stored) {
      try {
        const [atMs, attempt, line] = JSON.parse(text) as [unknown, unknown, unknown];
        if (typeof atMs === 'number' && typeof line === 'string') lines.push({ atMs, ...(typeof attempt === 'number' ? { attempt } : {}), line });
      } catch {
        // A line no client of this package wrote: left out.
      }
    }
    return { jobId: id, lines, trimmed: (Number(trimmed) || 0) + Number(skipped) };
  });
}

/** Lines sent at most by one {@link Queue.appendLogs} call. */
export const APPEND_LOGS_MAX = 1_000;

/** See {@link Queue.appendLogs}. */
export async function appendLogs<P>(ctx: QueueContext<P>, job: ClaimedJob, lines: readonly LogLineInput[]): Promise<void> {
  const { lines: keep, lineBytes } = ctx.options.jobLogs;
  if (keep === 0 || lines.length === 0) return;
  // Only the newest `keep` lines could stay: the others are counted, not sent.
  const sent = Math.min(lines.length, keep, APPEND_LOGS_MAX);
  const stored: string[] = [];
  for (let i = lines.length - sent; i < lines.length; i += 1) {
    const entry = lines[i] as LogLineInput;
    stored.push(JSON.stringify([Math.floor(entry.atMs), job.attempts, clipUtf8(String(entry.line), lineBytes)]));
  }
  const argv = appendLogsScript.argv({ job: ctx.keys.job(job.id), logs: ctx.keys.jobLogs(job.id) }, { token: job.token, keep, dropped: lines.length - sent, lines: stored });
  const reply = await ctx.scripts.run(appendLogsScript, argv);
  if (Number(reply) === NOT_OWNER) throw new LostClaimError(job.id, 'store the log lines of');
}
