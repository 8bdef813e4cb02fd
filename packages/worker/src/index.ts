/**
 * @jobs/worker: what a service that runs jobs installs. For now it re-exports, from @jobs/core,
 * everything a worker needs to define its kinds and signal outcomes; `createWorker()` with its
 * handler map lands with the producer and worker issue.
 */
export { defineKinds, isJobsError, JOBS_ERROR_CODES, JobsError, LostClaimError, PermanentError, RedisUnavailableError, UnknownKindError, ValidationError } from '@jobs/core';
export type {
  BackoffPolicy,
  ClaimedJob,
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
