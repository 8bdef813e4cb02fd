import * as core from '@jobs/core';
import { describe, expect, test } from 'vitest';
import * as api from '../src/index.ts';

describe('@jobs/reclaimer exports', () => {
  test('re-exports the queue, its errors and a safe Redis description from core', () => {
    expect(api.Queue).toBe(core.Queue);
    expect(api.isJobsError(new api.RedisUnavailableError('down'), 'JOBS_REDIS_UNAVAILABLE')).toBe(true);
    expect(api.describeRedis('redis://ops:s3cret@cache.internal:6380/2')).toBe('redis://ops:***@cache.internal:6380/2');
    expect(api.describeRedis({ host: 'cache', port: 6380, username: 'ops', password: 's3cret', tls: {} })).toBe('rediss://ops:***@cache:6380/0');
  });
});
