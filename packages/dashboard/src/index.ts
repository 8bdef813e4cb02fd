/**
 * @jobs/dashboard: the ops dashboard for @jobs queues. `createDashboard` gives a node:http
 * request handler to mount in your server (`@jobs/dashboard/express`, `/fastify` and `/hono`
 * adapt it to those frameworks) or `listen()` for a server of its own; `jobs-reclaimer
 * --dashboard-port` serves it too.
 */
export { createDashboard } from './dashboard.ts';
export type { Dashboard, DashboardOptions, DashboardServer } from './dashboard.ts';
export { jobQueueSource } from './job-queue-source.ts';
export type { DashboardQueue, JobQueueSourceOptions } from './job-queue-source.ts';
export { capabilitiesOf } from './data-source.ts';
export type { ChildInfo, DashboardCapabilities, DashboardDataSource, PauseTarget, QueueAdmissionState, ScheduleInfo, ShownLimits, TimelineEntry } from './data-source.ts';
export type { FlowTarget, QueueFlowState } from './data-source.ts';
export type { HistoryQuery } from './data-source.ts';
export { credentialsFromEnv, DASHBOARD_TOKEN_ENV } from './credentials.ts';
export type { DashboardCredentials, DashboardRole, DashboardToken } from './credentials.ts';
export type { DashboardAccess, DashboardAuthorization, DashboardAuthorize, DashboardCaller } from './authorize.ts';
/** The queue and its kinds from @jobs/core, to build the queues a dashboard shows without a second install. */
export { defineKinds, Queue } from '@jobs/core';
