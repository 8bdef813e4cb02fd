/**
 * @jobs/worker: what a service that runs jobs installs. `createWorker` runs a typed handler map
 * with leases it renews, timeouts, retries with backoff and graceful shutdown; the kind
 * registry, errors and types are re-exported from @jobs/core, so nothing else is needed.
 */
export { createWorker, Worker } from './worker.ts';
export type { CloseOptions } from './worker.ts';
export type { WorkerOptions } from './worker-options.ts';
export { closeOnSignals } from './signals.ts';
export type { CloseOnSignalsOptions } from './signals.ts';
export type { BatchContext, BatchHandler, BatchHandlerEntry, BatchJob, BatchOptions, BatchResults, Handler, HandlerMap, JobContext } from './handler-map.ts';
export type { IsolatedContext, IsolatedHandler, IsolatedHandlerEntry, IsolatedLog } from './isolate/isolated-handler.ts';
export type { JobLog } from './job-log.ts';
export type { WorkerEventMap } from './worker-events.ts';
export type { MetricsRegistry, PromClientModule, WorkerMetricsOptions } from './worker-metrics.ts';
export type { TracerLike, TracerProviderLike, WorkerTracingOptions } from './worker-tracing.ts';
export {
  defineKinds,
  HandlerCrashedError,
  silentLogger,
  describeRedis,
  isJobsError,
  JOBS_ERROR_CODES,
  JobsError,
  LostClaimError,
  NotReplicatedError,
  PermanentError,
  RateLimitedError,
  RedisUnavailableError,
  TimeoutError,
  UnknownKindError,
  ValidationError,
} from '@jobs/core';
export type {
  BackoffPolicy,
  ChildEnd,
  ChildResult,
  ErrorShape,
  JobAttempt,
  JobAttempts,
  JobLogLine,
  JobLogs,
  Logger,
  ClaimedJob,
  FailOutcome,
  JobRecord,
  JobStatus,
  JobsErrorCode,
  KindDefinition,
  KindName,
  KindOptions,
  Kinds,
  PayloadOf,
  PayloadTypesOf,
  QueueOptions,
  QueueStats,
  QueueLimits,
  RateLimit,
  KindLimits,
  LimitsState,
  ClusterConnectionOptions,
  DurabilityOptions,
  RedisConnectionInput,
  ValidationIssue,
} from '@jobs/core';
