import * as core from '@jobs/core';
import * as dashboard from '@jobs/dashboard';
import { describe, expect, test } from 'vitest';
import * as api from '../src/index.ts';

describe('@jobs/reclaimer exports', () => {
  test('re-exports the queue, its errors and a safe Redis description from core', () => {
    expect(api.Queue).toBe(core.Queue);
    expect(api.isJobsError(new api.RedisUnavailableError('down'), 'JOBS_REDIS_UNAVAILABLE')).toBe(true);
    expect(api.describeRedis('redis://ops:s3cret@cache.internal:6380/2')).toBe('redis://ops:***@cache.internal:6380/2');
    expect(api.describeRedis({ host: 'cache', port: 6380, username: 'ops', password: 's3cret', tls: {} })).toBe('rediss://ops:***@cache:6380/0');
  });

  test('still exports the dashboard, now @jobs/dashboard\'s own functions, for the release that deprecates them here', () => {
    expect(api.createDashboard).toBe(dashboard.createDashboard);
    expect(api.jobQueueSource).toBe(dashboard.jobQueueSource);
    expect(api.capabilitiesOf).toBe(dashboard.capabilitiesOf);
    expect(api.credentialsFromEnv).toBe(dashboard.credentialsFromEnv);
    expect(api.DASHBOARD_TOKEN_ENV).toBe(dashboard.DASHBOARD_TOKEN_ENV);
  });
});
