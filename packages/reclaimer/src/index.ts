/**
 * @jobs/reclaimer: what the ops team deploys. `createReclaimer` sweeps queues on an interval
 * (the `jobs-reclaimer` daemon wraps it, with Prometheus metrics and a health check), and the
 * `jobsctl` admin CLI looks after queues without knowing their keys. What operators' scripts need
 * from @jobs/core is re-exported here.
 */
export { createReclaimer, Reclaimer } from './reclaimer.ts';
export type { ReclaimerEventMap, ReclaimerOptions } from './reclaimer.ts';
export type { SweepReport } from './sweep.ts';
export { ReclaimerMetrics } from './metrics.ts';
export { startMetricsServer } from './metrics-server.ts';
export type { MetricsServer } from './metrics-server.ts';
export { discoverQueues } from './discover-queues.ts';
export { scheduleAdmin } from './admin/schedules-admin.ts';
export { jobsAclRules, jobsOperatorAclRules } from './acl.ts';
export { jsonLogger } from './json-logger.ts';
export type { JsonLoggerOptions, LogLevel } from './json-logger.ts';
export { defineKinds, describeRedis, isJobsError, JOBS_ERROR_CODES, JobQueue, JobsError, Queue, RedisUnavailableError } from '@jobs/core';
export type { JobRecord, JobStatus, JobsErrorCode, ListState, Logger, QueueStats, ReclaimResult, RedisConnectionInput, ClusterConnectionOptions, ScheduleRecord, ScheduleSpec, ScheduleStatus, UpsertScheduleResult } from '@jobs/core';
export { createDashboard } from './dashboard/dashboard.ts';
export type { Dashboard, DashboardOptions, DashboardServer } from './dashboard/dashboard.ts';
export { jobQueueSource } from './dashboard/job-queue-source.ts';
export type { DashboardQueue, JobQueueSourceOptions } from './dashboard/job-queue-source.ts';
export { capabilitiesOf } from './dashboard/data-source.ts';
export type { DashboardCapabilities, DashboardDataSource, PauseTarget, QueueAdmissionState, ScheduleInfo, ShownLimits, TimelineEntry } from './dashboard/data-source.ts';
export type { FlowTarget, QueueFlowState } from './dashboard/data-source.ts';
export { credentialsFromEnv, DASHBOARD_TOKEN_ENV } from './dashboard/credentials.ts';
export type { DashboardCredentials, DashboardRole } from './dashboard/credentials.ts';
