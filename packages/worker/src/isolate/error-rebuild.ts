import {
  HandlerCrashedError,
  InvalidArgumentError,
  JobCancelledError,
  JobFailedError,
  JobNotFoundError,
  JobsError,
  LostClaimError,
  NotReplicatedError,
  NotSerializableError,
  PayloadTooLargeError,
  PermanentError,
  RateLimitedError,
  RedisUnavailableError,
  TimeoutError,
  UnknownKindError,
  ValidationError,
  type JobsErrorCode,
} from '@jobs/core';
import { errorCodec } from './error-codec.ts';
import type { Thrown } from './protocol.ts';

const codec = errorCodec();

/** The class each code is thrown as in-process, so a child's error is an instance of the same one here. */
const CLASS_OF: Partial<Record<string, { prototype: JobsError }>> = {
  JOBS_PERMANENT: PermanentError,
  JOBS_RATE_LIMITED: RateLimitedError,
  JOBS_TIMEOUT: TimeoutError,
  JOBS_LOST_CLAIM: LostClaimError,
  JOBS_VALIDATION: ValidationError,
  JOBS_UNKNOWN_KIND: UnknownKindError,
  JOBS_PAYLOAD_TOO_LARGE: PayloadTooLargeError,
  JOBS_NOT_SERIALIZABLE: NotSerializableError,
  JOBS_INVALID_ARGUMENT: InvalidArgumentError,
  JOBS_NOT_FOUND: JobNotFoundError,
  JOBS_REDIS_UNAVAILABLE: RedisUnavailableError,
  JOBS_JOB_FAILED: JobFailedError,
  JOBS_NOT_REPLICATED: NotReplicatedError,
  JOBS_HANDLER_CRASHED: HandlerCrashedError,
  JOBS_CANCELLED: JobCancelledError,
};

/** What a thrown value is sent to the other side as (see error-codec.ts). */
export function toRecord(thrown: unknown): Thrown {
  return codec.toRecord(thrown);
}

/**
 * The error a child threw, made again in the worker: its name, message, stack, cause and
 * properties kept, and one with a @jobs code an instance of that code's class (`PermanentError`,
 * `RateLimitedError` with its `retryAfterMs`...), so it means here what it means thrown
 * in-process. A rate limit without a valid delay stays a plain failure.
 */
export function rebuildError(thrown: Thrown): unknown {
  if (!thrown.error) return thrown.value;
  const code = thrown.props.code;
  if (typeof code !== 'string' || !code.startsWith('JOBS_')) return codec.revive(thrown);
  const { field } = thrown.props;
  const cause = thrown.cause === undefined ? undefined : rebuildError(thrown.cause);
  const error = new JobsError(code as JobsErrorCode, thrown.message, { ...(typeof field === 'string' && { field }), cause });
  const made = CLASS_OF[code];
  const retryAfterMs = thrown.props.retryAfterMs;
  const validDelay = typeof retryAfterMs === 'number' && Number.isInteger(retryAfterMs) && retryAfterMs >= 1 && retryAfterMs <= 86_400_000;
  if (made !== undefined && (made !== RateLimitedError || validDelay)) Object.setPrototypeOf(error, made.prototype);
  Object.assign(error, thrown.props);
  error.name = thrown.name;
  if (thrown.stack !== undefined) error.stack = thrown.stack;
  return error;
}
