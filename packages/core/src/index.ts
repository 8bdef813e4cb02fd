/**
 * @jobs/core: the key schema, the atomic Lua scripts and the kind registry of @jobs, a Redis job
 * queue that keeps the redis.io job-queue recipe's data model and fixes its flaws.
 * Services install `@jobs/producer`, `@jobs/worker` or `@jobs/reclaimer`, which re-export what
 * their users need from here. What those packages need from core and users do not is in
 * `@jobs/core/internal` (not public).
 */
export { Queue } from './queue.ts';
export type { QueueReads } from './queue-reads.ts';
export type { Partition } from './partition.ts';
export type { QueueConfig } from './queue-options.ts';
export type { PartitionedEnqueueOptions } from './partition-routing.ts';
export type { PartitionedEnqueueRequest } from './commands/enqueue.ts';
export { JobQueue, PartitionedQueue } from './deprecated-queues.ts';
export type { JobQueueOptions, PartitionedQueueOptions } from './deprecated-queues.ts';
export { partitionOfKey } from './partitions.ts';
export { AUDIT_LABEL_PATTERN, AUDIT_MAX_ENTRIES, AUDIT_PAGE_MAX, AUDIT_TARGET_MAX_CHARS } from './commands/audit.ts';
export type { AuditEntry, AuditPage, AuditRecord, AuditTarget } from './commands/audit.ts';
export type { CancelOutcome } from './commands/cancel.ts';
export type { HandOffOutcome } from './commands/hand-off.ts';
export type { ChangePriorityOutcome } from './commands/change-priority.ts';
export type { PauseOptions } from './commands/pause.ts';
export type { PromoteOutcome } from './commands/promote-job.ts';
export type { RemoveOutcome } from './commands/remove.ts';
export type { ClaimOptions } from './commands/claim.ts';
export type { CompleteAndClaimResult, CompleteOutcome } from './commands/complete.ts';
export type { EnqueueRequest, EnqueueResult } from './commands/enqueue.ts';
export type { FailOptions, FailOutcome } from './commands/fail.ts';
export type { AttemptOutcome, JobAttempt, JobAttempts, JobLogLine, JobLogs, LogLineInput } from './commands/trail.ts';
export { ERROR_CAUSE_DEPTH, type ErrorShape } from './error-shape.ts';
export type { ChildFailurePolicy, ChildResult, FlowJobOptions, FlowRequest, FlowResult } from './commands/flow.ts';
export type { ReclaimResult } from './commands/reclaim.ts';
export type { ListState, QueueStats, WaitingPart } from './commands/views.ts';
export { LIST_STATES } from './commands/views.ts';
export type { WorkerInfo } from './commands/workers.ts';
export type { ScaleWorkersOptions, TellWorkersOptions, WorkersTold } from './commands/tell-workers.ts';
export type { HistoryOptions, QueueHistory } from './commands/history.ts';
export type { HistoryColumns } from './history-buckets.ts';
export type { JobTimeline } from './commands/timeline.ts';
export { WHY_REASON_CODES } from './commands/why.ts';
export type { JobWhy, WhyReason, WhyReasonCode, WhyReasonFields } from './commands/why.ts';
export type { AttemptHistoryOptions, DurabilityOptions, EventLogOptions, JobLogsOptions, QueueOptions } from './queue-options.ts';
export { DEFAULT_EVENT_LOG_MAX_LEN } from './queue-options.ts';
export { EventFollower } from './event-follower.ts';
export type { FollowOptions } from './event-follower.ts';
export { compareLogIds, parseLogEntry } from './log-entry.ts';
export type { LogEvent, LogEventName, LogGap, LogItem } from './log-entry.ts';
export type { EnqueueOptions } from './enqueue-options.ts';
export { Batch } from './batch.ts';
export { BATCH_ID_PATTERN, type BatchCallback, type BatchCallbackName, type BatchOptions, type BatchState } from './commands/batch.ts';
export type { DedupeOptions, DedupeState, UniqueOptions } from './dedupe-options.ts';
export type { DedupeOwner } from './commands/dedupe.ts';
export { MAX_JOB_COST } from './enqueue-options.ts';
export { assertPriority, MAX_PRIORITY, MIN_PRIORITY } from './priority.ts';
export { MAX_PROGRESS_BYTES } from './commands/progress.ts';
export { assertGroupKey, defaultBurst, MAX_CONCURRENCY, MAX_GROUP_KEY_LENGTH, MAX_RATE, MAX_RATE_WINDOW_MS, MIN_RATE_WINDOW_MS } from './limits.ts';
export type { KindLimits, LimitsState, QueueLimits, RateLimit } from './limits.ts';

export { defineKinds, Kinds, KIND_NAME_PATTERN } from './kinds.ts';
export type { DecodedPayload, DefineKindsOptions, KindDefinition, KindDefinitions, KindName, KindOptions, PayloadMap, PayloadOf, PayloadTypesOf } from './kinds.ts';

export { silentLogger } from './logger.ts';
export type { Logger } from './logger.ts';

export { backoffDelayMs, DEFAULT_BACKOFF } from './backoff.ts';
export type { BackoffPolicy } from './backoff.ts';

export { JOB_STATUSES } from './job-record.ts';

export { Schedules } from './schedules/schedules.ts';
export type { ScheduleHost, SchedulesOptions, UpsertScheduleResult } from './schedules/schedules.ts';
export { assertScheduleId, SCHEDULE_ID_PATTERN } from './schedules/schedule-spec.ts';
export type { ScheduleJobOptions, ScheduleSpec } from './schedules/schedule-spec.ts';
export type { ScheduleRecord, ScheduleStatus } from './schedules/schedule-record.ts';
export { MIN_EVERY_MS, nextRunAfter } from './schedules/schedule-timing.ts';
export type { ScheduleTiming } from './schedules/schedule-timing.ts';
export { ScheduleRunner, systemClock } from './schedules/schedule-runner.ts';
export type { FiredTick, RunnerClock, ScheduleRunnerOptions } from './schedules/schedule-runner.ts';
export { RedisScheduleStore } from './schedules/schedule-store.ts';
export type { ChannelListener, DueSchedule, FireResult, ScheduleStore } from './schedules/schedule-store.ts';
export type { ClaimedJob, JobRecord, JobStatus } from './job-record.ts';

export { assertJobId, assertQueueName, JOB_ID_PATTERN, QUEUE_NAME_PATTERN, queueKeys } from './keys.ts';
export type { QueueKeys } from './keys.ts';

export { describeRedis, MIN_REDIS_VERSION } from './redis-connection.ts';
export type { ClusterConnectionOptions, RedisConnectionInput } from './redis-connection.ts';
export type { RedisClient } from './redis-connection.ts';

export {
  HandlerCrashedError,
  InvalidArgumentError,
  isJobsError,
  JobCancelledError,
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
export type { ChildEnd, JobsErrorCode, JobsErrorFor, JobsErrorOptions, ValidationIssue } from './errors.ts';
export { FOREIGN_LIBRARY_WARNING } from './function-library.ts';
