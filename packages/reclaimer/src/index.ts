/**
 * @jobs/reclaimer: what the ops team deploys to return the jobs of crashed workers. For now it
 * re-exports what an operator's scripts need from @jobs/core (the queue's verbs, its stats and
 * errors); the daemon, its metrics and the admin CLI land with the reclaimer issue.
 */
export { describeRedis, isJobsError, JOBS_ERROR_CODES, JobQueue, JobsError, RedisUnavailableError, defineKinds } from '@jobs/core';
export type { JobRecord, JobStatus, JobsErrorCode, ListState, QueueStats, ReclaimResult, RedisConnectionInput } from '@jobs/core';
