/**
 * @jobs/producer: what a service that enqueues jobs installs. `createProducer` gives typed,
 * schema-validated `enqueue`, `enqueueMany`, `getJob`, `waitForResult` and `cancel`; the kind
 * registry, errors and types are re-exported from @jobs/core, so nothing else is needed.
 */
export { createProducer, Producer } from './producer.ts';
export type { ProducerOptions, WaitForResultOptions } from './producer.ts';
export {
  defineKinds,
  describeRedis,
  InvalidArgumentError,
  isJobsError,
  JobFailedError,
  JobNotFoundError,
  JOBS_ERROR_CODES,
  JobsError,
  NotReplicatedError,
  partitionOfKey,
  NotSerializableError,
  PayloadTooLargeError,
  RedisUnavailableError,
  TimeoutError,
  UnknownKindError,
  ValidationError,
} from '@jobs/core';
export type {
  BackoffPolicy,
  CancelOutcome,
  EnqueueOptions,
  PartitionedEnqueueOptions,
  EnqueueRequest,
  EnqueueResult,
  JobRecord,
  JobStatus,
  JobsErrorCode,
  KindDefinition,
  KindName,
  KindOptions,
  Kinds,
  PayloadOf,
  PayloadTypesOf,
  QueueStats,
  ClusterConnectionOptions,
  DurabilityOptions,
  RedisConnectionInput,
  ValidationIssue,
  Schedules,
  ScheduleRecord,
  ScheduleSpec,
  ScheduleStatus,
  UpsertScheduleResult,
} from '@jobs/core';
