import { JOBS_ERROR_CODES, JobsError, RedisUnavailableError, isJobsError } from './errors.ts';
import { SCRIPT_ERROR_CODES } from './generated/constants.ts';

/**
 * Redis errors enter @jobs here. ioredis hangs the failed command on its errors (`command: {
 * name, args }`), and the arguments hold what must never reach a log: the password of a HELLO or
 * AUTH, payloads of an FCALL. So every Redis error is turned into a {@link JobsError} that keeps
 * the command's name at most, never a raw ioredis error as its `cause`, and Redis's own words
 * only where they cannot repeat an argument.
 */

/** Names of the errors ioredis makes, or passes on from Redis. */
const IOREDIS_ERROR_NAMES = new Set(['ReplyError', 'SimpleError', 'AbortError', 'RedisError', 'ParserError', 'InterruptError', 'MaxRetriesPerRequestError', 'ClusterAllFailedError']);

/**
 * The first words of Redis replies whose text is fixed (it names no argument), so the text is
 * kept. Others (`ERR unknown command 'x', with args beginning with: ...`) keep only their word.
 */
const FIXED_TEXT_REPLIES = new Set(['WRONGTYPE', 'READONLY', 'BUSY', 'LOADING', 'MASTERDOWN', 'CLUSTERDOWN', 'TRYAGAIN', 'MOVED', 'ASK', 'NOSCRIPT', 'NOREPLICAS', 'MISCONF', 'CROSSSLOT', 'EXECABORT', 'BUSYGROUP', 'NOGROUP', 'UNBLOCKED']);

/** `ERR` replies whose wording is fixed, up to the script location Redis may add after them. */
const SAFE_ERR_TEXT = /^ERR (syntax error|value is not an integer or out of range|value is not a valid float|wrong number of arguments for '[a-z|._-]{1,40}' command|max number of clients reached|Protocol error: [a-z ]{1,60}|increment or decrement would overflow|index out of range|no such key|DUMP payload version or checksum are wrong)\b[^']*$/i;

/** Replies that say Redis is passing through a state in which it cannot answer yet. */
const REPLY_UNAVAILABLE = /^(LOADING|CLUSTERDOWN|MASTERDOWN|TRYAGAIN)\b/;

const CONNECTION_FAILURE = /max retries per request|connection is closed|aborted due to connection close|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE|Stream isn't writeable|Command timed out|CLUSTERDOWN|LOADING|MASTERDOWN|TRYAGAIN|Failed to refresh slots cache|None of startup nodes is available/i;

/** True for an error that ioredis made or passed on from Redis (the ones that may carry a command). */
export function isRedisError(error: unknown): error is Error {
  return error instanceof Error && !isJobsError(error) && (IOREDIS_ERROR_NAMES.has(error.name) || Object.hasOwn(error, 'command') || Object.hasOwn(error, 'lastNodeError'));
}

/**
 * Takes the arguments off what ioredis attached to `error`, in place: `command` keeps its name,
 * and the same is done to the errors it wraps (`lastNodeError`, `cause`). For errors that reach
 * no typed mapping first (an `error` event of a connection we opened).
 */
export function stripCommandArgs(error: unknown, depth = 0): void {
  if (typeof error !== 'object' || error === null || depth > 4) return;
  const record = error as { command?: unknown; lastNodeError?: unknown; cause?: unknown };
  if (Object.hasOwn(record, 'command')) {
    const name = (record.command as { name?: unknown } | null | undefined)?.name;
    record.command = typeof name === 'string' ? { name } : {};
  }
  if (Object.hasOwn(record, 'lastNodeError')) stripCommandArgs(record.lastNodeError, depth + 1);
  if (Object.hasOwn(record, 'cause')) stripCommandArgs(record.cause, depth + 1);
}

/** The command a Redis error was the reply to, upper-case (`FCALL`), or undefined. */
function commandName(error: Error): string | undefined {
  const name = (error as { command?: { name?: unknown } }).command?.name;
  return typeof name === 'string' && /^[a-z_.|-]{1,40}$/i.test(name) ? name.toUpperCase() : undefined;
}

/** What of a Redis reply error's first line is safe to repeat: all of it for fixed texts, else its first word. */
function safeReplyText(firstLine: string): string {
  const word = /^[A-Z][A-Z_-]*\b/.exec(firstLine)?.[0];
  if (word === undefined) return 'an error';
  if (FIXED_TEXT_REPLIES.has(word)) return firstLine;
  // ERR replies of fixed wording (an argument's name, never its value), and a script's runtime
  // error, which names the script's line.
  if (SAFE_ERR_TEXT.test(firstLine)) return firstLine;
  if (/^ERR (user_script|user_function):\d+:/.test(firstLine) || /^ERR .*\bon @user_(script|function)\b/.test(firstLine)) return firstLine;
  return `${word} (the rest of Redis's reply is left out: it can repeat the command's arguments)`;
}

/** A plain error with `text` and the original's name: a `cause` that carries no command. */
function safeCause(error: Error, text: string): Error {
  const cause = new Error(text);
  cause.name = error.name;
  return cause;
}

/**
 * Turns what ioredis or Redis threw into a {@link JobsError}: WRONGPASS/NOAUTH becomes
 * `JOBS_REDIS_AUTH`, NOPERM `JOBS_REDIS_NOPERM`, OOM `JOBS_REDIS_OOM`, connection failures
 * `JOBS_REDIS_UNAVAILABLE`, an error a script replies with on purpose (`JOBS_DUPLICATE_ID ...`)
 * its code, and any other Redis error `JOBS_REDIS_ERROR`. None keeps the command's arguments.
 * What is no Redis error (a JobsError already, a bug's TypeError) is returned as it is.
 */
export function toJobsError(error: unknown): unknown {
  if (isJobsError(error) || !(error instanceof Error)) return error;
  const message = error.message;
  const firstLine = message.split('\n')[0] as string;
  // Fixed texts: "WRONGPASS invalid username-password pair or user is disabled.", "NOAUTH Authentication required."
  if (/^(WRONGPASS|NOAUTH)\b/.test(message)) {
    return new JobsError(JOBS_ERROR_CODES.REDIS_AUTH, `Redis refused the credentials: ${firstLine}`);
  }
  // NOPERM from a command (it names the user and the command, or says "a key"); inside a script Redis words it differently.
  if (/^NOPERM\b|user executing the script can't|No permissions to access/.test(message)) {
    return new JobsError(JOBS_ERROR_CODES.REDIS_NOPERM, `the Redis user lacks a permission: ${firstLine}`);
  }
  // An error a script replies with on purpose: its first word is the JobsError code (see SCRIPT_ERROR_CODES).
  const scripted = /^(JOBS_[A-Z_]+) (.*)$/.exec(message);
  if (scripted && (SCRIPT_ERROR_CODES as readonly string[]).includes(scripted[1] as string)) {
    const code = scripted[1] as (typeof SCRIPT_ERROR_CODES)[number];
    if (code === 'JOBS_BATCH_CLOSED') return new JobsError(code, `batch ${scripted[2]} is sealed or was never opened; nothing was written`, { field: 'batch' });
    return new JobsError(code, code === 'JOBS_DUPLICATE_ID' ? `job id ${scripted[2]} is taken by another job; nothing was written` : message, { field: 'id' });
  }
  if (message.startsWith('OOM ')) {
    return new JobsError(JOBS_ERROR_CODES.REDIS_OOM, 'Redis is out of memory (maxmemory) and refused the write; nothing was written');
  }
  // A reply names a passing state in its first word only; the rest of a reply may repeat the
  // command's arguments, so only a socket's or the client's own errors are matched whole.
  const unavailable = error.name === 'ReplyError' ? REPLY_UNAVAILABLE.test(firstLine) : CONNECTION_FAILURE.test(message) || (error as NodeJS.ErrnoException).code === 'ECONNREFUSED';
  if (unavailable) {
    // The cause keeps the reply's first line (a cluster's TRYAGAIN or CLUSTERDOWN, which callers act on), not the command.
    return new RedisUnavailableError(unavailableReason(firstLine), safeCause(error, firstLine));
  }
  if (!isRedisError(error)) return error;
  const command = commandName(error);
  const text = safeReplyText(firstLine);
  return new JobsError(JOBS_ERROR_CODES.REDIS_ERROR, `Redis refused ${command ?? 'a command'}: ${text}`, { cause: safeCause(error, text) });
}

/** ioredis's wording of a connection failure in ours, without its option names. */
function unavailableReason(message: string): string {
  if (/^Command timed out/i.test(message)) return 'no reply within the command timeout (commandTimeoutMs)';
  const retries = /max retries per request limit \(which is (\d+)\)/i.exec(message);
  if (retries) return `the connection to Redis failed ${Number(retries[1]) + 1} times in a row while the command waited`;
  if (/^Connection is closed/i.test(message)) return 'the connection to Redis is closed';
  return message;
}

/** Runs `operation`, mapping what it throws with {@link toJobsError}. */
export async function withRedisErrors<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toJobsError(error);
  }
}
