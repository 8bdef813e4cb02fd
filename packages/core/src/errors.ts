/**
 * Every error @jobs throws on purpose is a {@link JobsError} with a stable `code` (match on the
 * code, never on the message), the `field` it is about when there is one, and the reason in
 * `message`.
 */

/** The stable error codes. */
export const JOBS_ERROR_CODES = {
  /** A payload (or another value) does not match its JSON schema; see `issues`. */
  VALIDATION: 'JOBS_VALIDATION',
  /** A kind that the registry does not define. */
  UNKNOWN_KIND: 'JOBS_UNKNOWN_KIND',
  /** A payload or result over the configured byte limit. */
  PAYLOAD_TOO_LARGE: 'JOBS_PAYLOAD_TOO_LARGE',
  /** A value that JSON cannot carry faithfully (undefined, a function, NaN, a cycle, a Date...). */
  NOT_SERIALIZABLE: 'JOBS_NOT_SERIALIZABLE',
  /** A bad argument or option: a queue name that would break the key schema, a negative delay... */
  INVALID_ARGUMENT: 'JOBS_INVALID_ARGUMENT',
  /** The caller no longer holds the job's claim: it was reclaimed, or already finished. */
  LOST_CLAIM: 'JOBS_LOST_CLAIM',
  /** No job with that id (or its hash has expired). */
  NOT_FOUND: 'JOBS_NOT_FOUND',
  /** Redis could not be reached in time. */
  REDIS_UNAVAILABLE: 'JOBS_REDIS_UNAVAILABLE',
  /** Redis is at maxmemory and refuses writes; nothing was written. */
  REDIS_OOM: 'JOBS_REDIS_OOM',
  /** Redis refused the credentials (WRONGPASS, NOAUTH). The password is never repeated. */
  REDIS_AUTH: 'JOBS_REDIS_AUTH',
  /** The Redis ACL user may not run a command or touch a key it needed (NOPERM). */
  REDIS_NOPERM: 'JOBS_REDIS_NOPERM',
  /**
   * Redis replied with an error that has no code of its own here. The message names the command
   * and the reply's first word (its whole text only where that cannot repeat an argument), never
   * the command's arguments.
   */
  REDIS_ERROR: 'JOBS_REDIS_ERROR',
  /** The Redis server is older than 7.0. */
  UNSUPPORTED_REDIS: 'JOBS_UNSUPPORTED_REDIS',
  /** A handler asked for no retries: the job fails at once. */
  PERMANENT: 'JOBS_PERMANENT',
  /** The queue (or producer, worker) was closed. */
  CLOSED: 'JOBS_CLOSED',
  /** Something did not finish in time: a handler past its kind's timeout, a wait for a result. */
  TIMEOUT: 'JOBS_TIMEOUT',
  /** A job whose result was awaited failed for good, or was cancelled. */
  JOB_FAILED: 'JOBS_JOB_FAILED',
  /**
   * Durable mode: the write is done on the primary, but fewer replicas than asked confirmed it in
   * time, so a failover now could lose it. Repeating the call (with an idempotency key) is safe.
   */
  NOT_REPLICATED: 'JOBS_NOT_REPLICATED',
  /**
   * An enqueue named a job id that another job with another payload already holds; nothing was
   * written. The ids @jobs makes are random, so this means two writers chose the same id.
   */
  DUPLICATE_ID: 'JOBS_DUPLICATE_ID',
  /**
   * A job was not started before its expiry (`ttlMs` / `expiresAt`): it never ran, and is in
   * the failed list with a `last_error` that starts with this code.
   */
  EXPIRED: 'JOBS_EXPIRED',
  /**
   * Thrown by a handler: the service behind the job's kind pushed back (an HTTP 429, say). No
   * worker claims that kind for `retryAfterMs`, and the job goes back without using an attempt.
   */
  RATE_LIMITED: 'JOBS_RATE_LIMITED',
  /**
   * A flow's parent failed because one of its children failed for good (dead-lettered or
   * cancelled): its `last_error` starts with this code and names the child.
   */
  CHILD_FAILED: 'JOBS_CHILD_FAILED',
  /**
   * Jobs were added to a batch that is sealed already, or was never opened (see
   * `Producer.batch`); nothing was written.
   */
  BATCH_CLOSED: 'JOBS_BATCH_CLOSED',
  /**
   * The job was cancelled (`cancel`) while it ran: the reason its handler's `signal` aborts
   * with. The job ends `cancelled`, neither retried nor failed, and its claim is void.
   */
  CANCELLED: 'JOBS_CANCELLED',
  /**
   * The handler snoozed its job (`ctx.snooze`): the reason its `signal` aborts with, so work it
   * left running stops. The job waits in the delayed set; the attempt is not counted.
   */
  SNOOZED: 'JOBS_SNOOZED',
  /**
   * The child thread or process running an isolated handler (see the worker's `handlers`) ended
   * while it ran the job: it exited, was killed, threw an uncaught error or ran out of memory.
   * The attempt fails and is retried as any other failure.
   */
  HANDLER_CRASHED: 'JOBS_HANDLER_CRASHED',
} as const;

/** One of {@link JOBS_ERROR_CODES}. */
export type JobsErrorCode = (typeof JOBS_ERROR_CODES)[keyof typeof JOBS_ERROR_CODES];

const MARKER = Symbol.for('@jobs/error');

/** Options every {@link JobsError} accepts. */
export interface JobsErrorOptions {
  /** The argument, option or JSON pointer the error is about. */
  field?: string;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * The base class of every error @jobs throws on purpose.
 *
 * @example
 * ```ts
 * try { await producer.enqueue('email', payload); }
 * catch (error) { if (isJobsError(error, 'JOBS_VALIDATION')) console.log(error.issues); }
 * ```
 */
export class JobsError extends Error {
  /** Stable code: match on this, not on the message. */
  readonly code: JobsErrorCode;
  /** The argument, option or JSON pointer the error is about, when there is one. */
  readonly field: string | undefined;

  constructor(code: JobsErrorCode, message: string, options: JobsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.field = options.field;
    // A symbol marker rather than instanceof, so isJobsError() works across duplicate installs.
    Object.defineProperty(this, MARKER, { value: true });
  }
}

/** The error class that carries each code (a plain {@link JobsError} for the others). */
export type JobsErrorFor<C extends JobsErrorCode> = (C extends 'JOBS_VALIDATION'
  ? ValidationError
  : C extends 'JOBS_UNKNOWN_KIND'
    ? UnknownKindError
    : C extends 'JOBS_PAYLOAD_TOO_LARGE'
      ? PayloadTooLargeError
      : C extends 'JOBS_LOST_CLAIM'
        ? LostClaimError
        : C extends 'JOBS_NOT_FOUND'
          ? JobNotFoundError
          : C extends 'JOBS_TIMEOUT'
            ? TimeoutError
            : C extends 'JOBS_JOB_FAILED'
              ? JobFailedError
              : C extends 'JOBS_NOT_REPLICATED'
                ? NotReplicatedError
                : C extends 'JOBS_HANDLER_CRASHED'
                  ? HandlerCrashedError
                  : JobsError) & { readonly code: C };

/**
 * True when `error` is a {@link JobsError} (even one from another copy of this package), and,
 * when `code` is given, has that code; it then narrows to the class that carries the code
 * (`JOBS_VALIDATION` to {@link ValidationError} with its `issues`, and so on).
 */
export function isJobsError<C extends JobsErrorCode>(error: unknown, code?: C): error is JobsErrorFor<C> {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[MARKER] === true &&
    (code === undefined || (error as JobsError).code === code)
  );
}

/** One schema violation: where (a JSON pointer into the payload), what rule, and why. */
export interface ValidationIssue {
  /** JSON pointer of the offending value, `''` for the payload itself. */
  pointer: string;
  /** The schema keyword that failed (`type`, `required`, `format`...). */
  keyword: string;
  /** What is wrong, in words. */
  message: string;
}

/** A payload does not match its kind's JSON schema. `issues` lists every violation. */
export class ValidationError extends JobsError {
  /** Every violation, each with its JSON pointer. */
  readonly issues: readonly ValidationIssue[];
  /** The kind whose schema was applied. */
  readonly kind: string;

  constructor(kind: string, issues: readonly ValidationIssue[], field = 'payload') {
    const listed = issues.map((issue) => `${issue.pointer || '/'} ${issue.message}`).join('; ');
    super(JOBS_ERROR_CODES.VALIDATION, `invalid ${field} for kind "${kind}": ${listed}`, { field });
    this.issues = issues;
    this.kind = kind;
  }
}

/** A kind the registry does not define. */
export class UnknownKindError extends JobsError {
  /** The kind that was asked for. */
  readonly kind: string;

  constructor(kind: string, known: readonly string[]) {
    super(
      JOBS_ERROR_CODES.UNKNOWN_KIND,
      `unknown kind ${JSON.stringify(kind)}; known kinds: ${known.map((k) => JSON.stringify(k)).join(', ') || '(none)'}`,
      { field: 'kind' },
    );
    this.kind = kind;
  }
}

/** A payload or result whose JSON is over the configured limit. */
export class PayloadTooLargeError extends JobsError {
  /** Size of the JSON in bytes. */
  readonly bytes: number;
  /** The limit in bytes. */
  readonly limit: number;

  constructor(field: string, bytes: number, limit: number) {
    super(JOBS_ERROR_CODES.PAYLOAD_TOO_LARGE, `${field} is ${bytes} bytes of JSON, over the limit of ${limit} bytes`, { field });
    this.bytes = bytes;
    this.limit = limit;
  }
}

/** A value JSON cannot carry faithfully; `field` is its JSON pointer. */
export class NotSerializableError extends JobsError {
  constructor(field: string, why: string) {
    super(JOBS_ERROR_CODES.NOT_SERIALIZABLE, `${field} is not JSON-serialisable: ${why}`, { field });
  }
}

/** A bad argument or option. */
export class InvalidArgumentError extends JobsError {
  constructor(field: string, why: string) {
    super(JOBS_ERROR_CODES.INVALID_ARGUMENT, `invalid ${field}: ${why}`, { field });
  }
}

/** A job was cancelled while it ran: the reason its handler's `signal` aborts with. */
export class JobCancelledError extends JobsError {
  /** The job's id. */
  readonly jobId: string;

  constructor(jobId: string) {
    super(JOBS_ERROR_CODES.CANCELLED, `job ${jobId} was cancelled while it ran: its claim is void and its outcome is not recorded`, { field: 'id' });
    this.jobId = jobId;
  }
}

/** The caller no longer holds the job's claim (it was reclaimed, or already finished). */
export class LostClaimError extends JobsError {
  /** The job's id. */
  readonly jobId: string;

  constructor(jobId: string, action: string) {
    super(
      JOBS_ERROR_CODES.LOST_CLAIM,
      `cannot ${action} job ${jobId}: this claim is no longer valid (the lease expired and the job was reclaimed, or it was already completed or failed)`,
      { field: 'token' },
    );
    this.jobId = jobId;
  }
}

/** No job with that id, or its hash has expired. */
export class JobNotFoundError extends JobsError {
  /** The id that was asked for. */
  readonly jobId: string;

  constructor(jobId: string) {
    super(JOBS_ERROR_CODES.NOT_FOUND, `no job with id ${JSON.stringify(jobId)}`, { field: 'id' });
    this.jobId = jobId;
  }
}

/** Redis could not be reached, or did not answer in time. */
export class RedisUnavailableError extends JobsError {
  constructor(why: string, cause?: unknown) {
    super(JOBS_ERROR_CODES.REDIS_UNAVAILABLE, `Redis is unavailable: ${why}`, { cause });
  }
}

/**
 * Thrown from a handler, fails the job at once, without retries. Anything else a handler throws
 * is retried with the kind's backoff until its attempts run out.
 *
 * @example
 * ```ts
 * if (!user) throw new PermanentError(`user ${payload.userId} does not exist`);
 * ```
 */
export class PermanentError extends JobsError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(JOBS_ERROR_CODES.PERMANENT, message, options);
  }
}

/**
 * Throw it from a handler when the service the job calls pushed back (an HTTP 429 with
 * `Retry-After`, a quota error): every worker stops claiming jobs of the job's kind for
 * `retryAfterMs` (checked inside Redis by each claim), and the job goes back to the front of its
 * list without the attempt counting against it.
 *
 * @example
 * ```ts
 * if (response.status === 429) throw new RateLimitedError(Number(response.headers.get('retry-after') ?? 1) * 1000);
 * ```
 */
export class RateLimitedError extends JobsError {
  /** How long the kind is not claimed, in ms (1 ms to 1 day). */
  readonly retryAfterMs: number;

  constructor(retryAfterMs: number, message = `the service pushed back: retry after ${retryAfterMs} ms`) {
    super(JOBS_ERROR_CODES.RATE_LIMITED, message, { field: 'retryAfterMs' });
    if (!Number.isInteger(retryAfterMs) || retryAfterMs < 1 || retryAfterMs > 86_400_000) {
      throw new InvalidArgumentError('retryAfterMs', `expected a whole number of ms from 1 to 86400000, got ${String(retryAfterMs)}`);
    }
    this.retryAfterMs = retryAfterMs;
  }
}

/** Something did not finish in time; `field` says what (e.g. `timeoutMs`). */
export class TimeoutError extends JobsError {
  /** The limit that was reached, in ms. */
  readonly timeoutMs: number;

  constructor(what: string, timeoutMs: number, field = 'timeoutMs') {
    super(JOBS_ERROR_CODES.TIMEOUT, `${what} did not finish within ${timeoutMs} ms`, { field });
    this.timeoutMs = timeoutMs;
  }
}

/** The job whose result was awaited ended without one: it failed for good, or was cancelled. */
export class JobFailedError extends JobsError {
  readonly jobId: string;
  /** `failed` or `cancelled`. */
  readonly status: string;
  /** The job's last error, when it failed. */
  readonly lastError: string | undefined;

  constructor(jobId: string, status: string, lastError: string | undefined) {
    super(JOBS_ERROR_CODES.JOB_FAILED, status === 'cancelled' ? `job ${jobId} was cancelled` : `job ${jobId} failed: ${lastError ?? 'no reason recorded'}`, { field: 'id' });
    this.jobId = jobId;
    this.status = status;
    this.lastError = lastError;
  }
}

/**
 * Durable mode: Redis did the write, but `acknowledged` replicas (fewer than `required`) had
 * confirmed it when the wait ran out. The write stands on the primary; a failover before the
 * replicas catch up could lose it. `ids` names the jobs an enqueue wrote.
 */
export class NotReplicatedError extends JobsError {
  /** Replicas that confirmed the write. */
  readonly acknowledged: number;
  /** Replicas asked for (`durability.replicas`). */
  readonly required: number;
  /** The ids an enqueue wrote (empty for other calls). */
  readonly ids: readonly string[];

  constructor(what: string, acknowledged: number, required: number, timeoutMs: number, ids: readonly string[] = []) {
    super(
      JOBS_ERROR_CODES.NOT_REPLICATED,
      `${what} is written on the primary, but only ${acknowledged} of ${required} replica(s) confirmed it within ${timeoutMs} ms: a failover now could lose it`,
      { field: 'durability.replicas' },
    );
    this.acknowledged = acknowledged;
    this.required = required;
    this.ids = ids;
  }
}

/** How an isolated handler's child ended (see {@link HandlerCrashedError}). */
export interface ChildEnd {
  /** Its exit code, when it exited. */
  readonly exitCode: number | null;
  /** The signal that killed it (a process child), when one did. */
  readonly signal: string | null;
  /** True when it ran out of memory (its `memoryMb`, or Node's heap limit). */
  readonly outOfMemory: boolean;
  /** What it threw last, uncaught, when it did. */
  readonly uncaught?: string | undefined;
}

/**
 * The child thread or process running an isolated handler ended while it ran the job (it called
 * `process.exit`, was killed, threw an uncaught error, or ran out of memory): the attempt fails
 * and is retried with the kind's backoff, and a new child takes the dead one's place.
 */
export class HandlerCrashedError extends JobsError {
  /** The job's kind. */
  readonly kind: string;
  /** The child's exit code, when it exited. */
  readonly exitCode: number | null;
  /** The signal that killed the child, when one did. */
  readonly signal: string | null;
  /** True when the child ran out of memory. */
  readonly outOfMemory: boolean;

  constructor(kind: string, jobId: string, end: ChildEnd) {
    const how = [
      end.outOfMemory ? 'out of memory' : undefined,
      end.uncaught === undefined ? undefined : `uncaught ${end.uncaught}`,
      end.signal === null ? undefined : `killed by ${end.signal}`,
      end.exitCode === null ? undefined : `exit code ${end.exitCode}`,
    ].filter((part) => part !== undefined);
    super(JOBS_ERROR_CODES.HANDLER_CRASHED, `the isolated handler of kind "${kind}" crashed while it ran job ${jobId}: ${how.join(', ') || 'it ended'}`, { field: `handlers.${kind}` });
    this.kind = kind;
    this.exitCode = end.exitCode;
    this.signal = end.signal;
    this.outOfMemory = end.outOfMemory;
  }
}
