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
export type { JobQueueOptions } from './job-queue.ts';
export type { CancelOutcome } from './commands/cancel.ts';
export type { ClaimOptions } from './commands/claim.ts';
export type { CompleteAndClaimResult, CompleteOutcome } from './commands/complete.ts';
export type { EnqueueRequest, EnqueueResult, PreparedEnqueue } from './commands/enqueue.ts';
export type { FailOptions, FailOutcome } from './commands/fail.ts';
export type { ReclaimResult } from './commands/reclaim.ts';
export type { ListState, QueueStats } from './commands/views.ts';
export type { JobTimeline } from './commands/timeline.ts';
export type { DurabilityOptions, EventLogOptions, QueueOptions } from './queue-options.ts';
export { DEFAULT_EVENT_LOG_MAX_LEN } from './queue-options.ts';
export { EventFollower } from './event-follower.ts';
export type { FollowOptions } from './event-follower.ts';
export { compareLogIds, parseLogEntry } from './log-entry.ts';
export type { LogEvent, LogEventName, LogGap, LogItem } from './log-entry.ts';
export type { EnqueueOptions } from './enqueue-options.ts';

export { defineKinds, Kinds, KIND_NAME_PATTERN } from './kinds.ts';
export type { DecodedPayload, DefineKindsOptions, KindDefinition, KindDefinitions, KindName, KindOptions, PayloadMap, PayloadOf, PayloadTypesOf } from './kinds.ts';

export { childLogger, silentLogger } from './logger.ts';
export { assertWholeNumber } from './whole-number.ts';
export type { Logger } from './logger.ts';

export { backoffDelayMs, DEFAULT_BACKOFF } from './backoff.ts';
export type { BackoffPolicy } from './backoff.ts';

export { JOB_STATUSES, parseJobRecord } from './job-record.ts';
export type { ClaimedJob, JobRecord, JobStatus } from './job-record.ts';

export { assertJobId, assertQueueName, JOB_ID_PATTERN, QUEUE_NAME_PATTERN, queueKeys } from './keys.ts';
export type { QueueKeys } from './keys.ts';

export { closeClient, connectRedis, describeRedis, duplicateClient, isRedisClient, MIN_REDIS_VERSION, toJobsError } from './redis-connection.ts';
export type { ClusterConnectionOptions, RedisConnection, RedisConnectionInput } from './redis-connection.ts';
export type { RedisClient } from './redis-connection.ts';

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
  RedisUnavailableError,
  TimeoutError,
  UnknownKindError,
  ValidationError,
} from './errors.ts';
export type { JobsErrorCode, JobsErrorFor, JobsErrorOptions, ValidationIssue } from './errors.ts';
