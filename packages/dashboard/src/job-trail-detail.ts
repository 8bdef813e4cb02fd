import { isJobsError, type ErrorShape, type JobAttempts, type JobLogs } from '@jobs/core';
import type { DashboardDataSource } from './data-source.ts';
import { clipText, shownNumber, shownTime } from './shown-values.ts';

// What a job's detail says of its attempts and its log lines, each text cut to a size a page
// holds, however much the queue keeps: a custom source, or anyone who writes to Redis, may hand
// over more.

/** The newest attempts the detail shows; the older ones are counted in `trimmed`. */
export const ATTEMPTS_SHOWN = 50;
/** The newest log lines the detail shows; the older ones are counted in `trimmed`. */
export const LOG_LINES_SHOWN = 500;
/** The most characters shown of one stack. */
const STACK_CHARS = 8_192;
/** The most characters shown of one message, log line or worker id. */
const MESSAGE_CHARS = 4_096;
const LINE_CHARS = 2_048;
const CODE_CHARS = 64;
const WORKER_CHARS = 128;
/** The most causes shown below an error. */
const CAUSE_DEPTH = 3;

/** What a source, or a hash written by hand, calls an error: the one error form, each text cut; undefined for none. */
export function shownError(error: unknown, depth = 0): Record<string, unknown> | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, stack, cause } = error as Partial<Record<keyof ErrorShape, unknown>>;
  if (typeof message !== 'string') return undefined;
  const inner = depth < CAUSE_DEPTH ? shownError(cause, depth + 1) : undefined;
  return {
    ...(typeof code === 'string' && code !== '' && { code: clipText(code, CODE_CHARS) }),
    message: clipText(message, MESSAGE_CHARS),
    ...(typeof stack === 'string' && stack !== '' && { stack: clipText(stack, STACK_CHARS) }),
    ...(inner !== undefined && { cause: inner }),
  };
}

const count = (value: unknown): number => {
  const n = shownNumber(value);
  return n !== null && n > 0 ? Math.floor(n) : 0;
};

function shownAttempts(answer: JobAttempts): Record<string, unknown> {
  const entries = Array.isArray(answer.entries) ? answer.entries : [];
  const shown = entries.slice(-ATTEMPTS_SHOWN).map((entry) => {
    const error = shownError(entry.error);
    return {
      attempt: shownNumber(entry.attempt) ?? 0,
      ...(typeof entry.workerId === 'string' && entry.workerId !== '' && { workerId: clipText(entry.workerId, WORKER_CHARS) }),
      claimedAtMs: shownTime(entry.claimedAtMs),
      endedAtMs: shownTime(entry.endedAtMs),
      durationMs: shownNumber(entry.durationMs),
      outcome: clipText(String(entry.outcome), CODE_CHARS),
      ...(error !== undefined && { error }),
    };
  });
  return { entries: shown, trimmed: count(answer.trimmed) + entries.length - shown.length };
}

function shownLogs(answer: JobLogs): Record<string, unknown> {
  const lines = Array.isArray(answer.lines) ? answer.lines : [];
  const shown = lines.slice(-LOG_LINES_SHOWN).map((line) => ({
    atMs: shownTime(line.atMs) ?? 0,
    ...(typeof line.attempt === 'number' && Number.isFinite(line.attempt) && { attempt: line.attempt }),
    line: clipText(String(line.line), LINE_CHARS),
  }));
  return { lines: shown, trimmed: count(answer.trimmed) + lines.length - shown.length };
}

/** Where the detail's reads go wrong: logged without the job's data. */
type WarnLog = { warn(fields: object, message?: string): void };

/**
 * The job's attempts and log lines for its detail, when the source has them (capabilities
 * `attempts` and `logs`), or a note for each that could not be read: the rest of the detail is
 * still shown.
 */
export async function trailOf(source: DashboardDataSource, log: WarnLog, queue: string, id: string): Promise<Record<string, unknown>> {
  const [attempts, logs] = await Promise.all([
    source.attempts && Promise.resolve().then(() => source.attempts?.(queue, id) ?? null).then(
      (answer) => (answer ? { attempts: shownAttempts(answer) } : {}),
      (error: unknown) => {
        log.warn({ queue, id, code: isJobsError(error) ? error.code : undefined }, 'dashboard could not read the attempts of a job');
        return { attemptsError: 'the attempts of this job could not be read' };
      },
    ),
    source.logs && Promise.resolve().then(() => source.logs?.(queue, id, LOG_LINES_SHOWN) ?? null).then(
      (answer) => (answer ? { logs: shownLogs(answer) } : {}),
      (error: unknown) => {
        log.warn({ queue, id, code: isJobsError(error) ? error.code : undefined }, 'dashboard could not read the log lines of a job');
        return { logsError: 'the log lines of this job could not be read' };
      },
    ),
  ]);
  return { ...attempts, ...logs };
}
