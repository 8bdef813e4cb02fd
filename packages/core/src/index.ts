/**
 * @jobs/core: the key schema, the atomic Lua scripts and the kind registry of @jobs, a Redis job
 * queue that keeps the redis.io job-queue recipe's data model and fixes its flaws.
 * Services install `@jobs/producer`, `@jobs/worker` or `@jobs/reclaimer`, which re-export what
 * their users need from here.
 */
export { JobQueue } from './job-queue.ts';
export { PartitionedQueue, recordedPartitions } from './partitioned-queue.ts';
export type { PartitionedEnqueueOptions, PartitionedEnqueueRequest, PartitionedQueueOptions } from './partitioned-queue.ts';
export { MAX_PARTITIONS, partitionName, partitionNames, partitionOfId, partitionOfKey } from './partitions.ts';
export type {
  CancelOutcome,
  ClaimOptions,
  CompleteAndClaimResult,
  CompleteOutcome,
  EnqueueRequest,
  EnqueueResult,
  FailOptions,
  FailOutcome,
  JobQueueOptions,
  PreparedEnqueue,
  ListState,
  QueueStats,
  ReclaimResult,
} from './job-queue.ts';
export type { DurabilityOptions, QueueOptions } from './queue-options.ts';
export type { EnqueueOptions } from './enqueue-options.ts';
export { assertPriority, MAX_PRIORITY, MIN_PRIORITY } from './priority.ts';
export { MAX_PROGRESS_BYTES } from './flow-control.ts';
export { assertGroupKey, MAX_CONCURRENCY, MAX_GROUP_KEY_LENGTH, MAX_RATE, MAX_RATE_WINDOW_MS, MIN_RATE_WINDOW_MS } from './limits.ts';
export type { KindLimits, LimitsState, QueueLimits, RateLimit } from './limits.ts';

export { defineKinds, Kinds, KIND_NAME_PATTERN } from './kinds.ts';
export type { DecodedPayload, DefineKindsOptions, KindDefinition, KindDefinitions, KindName, KindOptions, PayloadMap, PayloadOf, PayloadTypesOf } from './kinds.ts';

export { childLogger, silentLogger } from './logger.ts';
export { assertWholeNumber } from './whole-number.ts';
export type { Logger } from './logger.ts';

export { backoffDelayMs, DEFAULT_BACKOFF } from './backoff.ts';
export type { BackoffPolicy } from './backoff.ts';

export { JOB_STATUSES, parseJobRecord } from './job-record.ts';

export { Schedules } from './schedules/schedules.ts';
export type { ScheduleHost, SchedulesOptions, UpsertScheduleResult } from './schedules/schedules.ts';
export { assertScheduleId, SCHEDULE_ID_PATTERN } from './schedules/schedule-spec.ts';
export type { ScheduleSpec } from './schedules/schedule-spec.ts';
export type { ScheduleRecord, ScheduleStatus } from './schedules/schedule-record.ts';
export { MIN_EVERY_MS, nextRunAfter } from './schedules/schedule-timing.ts';
export type { ScheduleTiming } from './schedules/schedule-timing.ts';
export { ScheduleRunner, systemClock } from './schedules/schedule-runner.ts';
export type { FiredTick, RunnerClock, ScheduleRunnerOptions } from './schedules/schedule-runner.ts';
export { RedisScheduleStore } from './schedules/schedule-store.ts';
export type { DueSchedule, FireResult, ScheduleStore } from './schedules/schedule-store.ts';
export type { ClaimedJob, JobRecord, JobStatus } from './job-record.ts';

export { assertJobId, assertQueueName, JOB_ID_PATTERN, QUEUE_NAME_PATTERN, queueKeys } from './keys.ts';
export type { QueueKeys } from './keys.ts';

export { closeClient, connectRedis, describeRedis, duplicateClient, isRedisClient, MIN_REDIS_VERSION, toJobsError } from './redis-connection.ts';
export type { ClusterConnectionOptions, RedisConnection, RedisConnectionInput } from './redis-connection.ts';
export type { RedisClient } from './lua.ts';

export {
  InvalidArgumentError,
  isJobsError,
  JobFailedError,
  JOBS_ERROR_CODES,
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
} from './errors.ts';
export type { JobsErrorCode, JobsErrorFor, JobsErrorOptions, ValidationIssue } from './errors.ts';
