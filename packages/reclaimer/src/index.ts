/**
 * @jobs/reclaimer: what the ops team deploys. `createReclaimer` sweeps queues on an interval
 * (the `jobs-reclaimer` daemon wraps it, with Prometheus metrics and a health check), and the
 * `jobsctl` admin CLI looks after queues without knowing their keys. What operators' scripts need
 * from @jobs/core is re-exported here. The dashboard is `@jobs/dashboard` (the daemon serves it).
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
import * as dashboard from '@jobs/dashboard';

// The dashboard moved to @jobs/dashboard; what this package exported of it stays here for one release.
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export const createDashboard = dashboard.createDashboard;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export const jobQueueSource = dashboard.jobQueueSource;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export const capabilitiesOf = dashboard.capabilitiesOf;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export const credentialsFromEnv = dashboard.credentialsFromEnv;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export const DASHBOARD_TOKEN_ENV = dashboard.DASHBOARD_TOKEN_ENV;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type Dashboard = dashboard.Dashboard;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type DashboardOptions = dashboard.DashboardOptions;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type DashboardServer = dashboard.DashboardServer;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type DashboardQueue = dashboard.DashboardQueue;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type JobQueueSourceOptions = dashboard.JobQueueSourceOptions;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type DashboardCapabilities = dashboard.DashboardCapabilities;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type DashboardDataSource = dashboard.DashboardDataSource;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type PauseTarget = dashboard.PauseTarget;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type QueueAdmissionState = dashboard.QueueAdmissionState;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type ScheduleInfo = dashboard.ScheduleInfo;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type ShownLimits = dashboard.ShownLimits;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type TimelineEntry = dashboard.TimelineEntry;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type FlowTarget = dashboard.FlowTarget;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type QueueFlowState = dashboard.QueueFlowState;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type DashboardCredentials = dashboard.DashboardCredentials;
/** @deprecated Import it from `@jobs/dashboard`: this re-export goes in the next release. */
export type DashboardRole = dashboard.DashboardRole;
