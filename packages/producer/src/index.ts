/**
 * @jobs/producer: what a service that enqueues jobs installs. For now it re-exports, from
 * @jobs/core, everything a producer needs to define its kinds and handle errors; the
 * `createProducer()` API lands with the producer and worker issue.
 */
export { defineKinds, isJobsError, JOBS_ERROR_CODES, JobsError, InvalidArgumentError, NotSerializableError, PayloadTooLargeError, RedisUnavailableError, UnknownKindError, ValidationError } from '@jobs/core';
export type {
  BackoffPolicy,
  EnqueueOptions,
  JobRecord,
  JobStatus,
  JobsErrorCode,
  KindDefinition,
  KindName,
  KindOptions,
  Kinds,
  PayloadOf,
  PayloadTypesOf,
  RedisConnectionInput,
  ValidationIssue,
} from '@jobs/core';
