import { findFreePort, startRedisServer } from '@jobs/dev-redis';
import { isClusterRun, queueKeysIn } from '@jobs/testing';
import { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { isJobsError, JobQueue } from '../src/index.ts';
import { kinds } from './fixtures.ts';

// These tests bring their own redis-server (an ACL user, maxmemory) or none at all: a cluster
// run would only repeat them as they are. The cluster pass covers the run's cluster instead.
describe.skipIf(isClusterRun())('Redis errors become typed errors', () => {
  test('a Redis user missing a permission gets JOBS_REDIS_NOPERM from claim, and the job is not dropped', async () => {
    const server = await startRedisServer({ name: 'noperm' });
    const admin = new Redis(server.url);
    try {
      await admin.acl('SETUSER', 'partial', 'on', '>pw', '~*', '&*', '+@all', '-hmget');
      const url = server.url.replace('redis://', 'redis://partial:pw@');
      const queue = new JobQueue({ redis: url, queue: 'perm', kinds });
      await queue.enqueue('email', { recipient: 'a@example.com' });
      const error = await queue.claim().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'JOBS_REDIS_NOPERM' });
      expect((await new JobQueue({ redis: admin, queue: 'perm', kinds }).stats()).droppedTotal).toBe(0);
      await queue.close();
    } finally {
      admin.disconnect();
      await server.stop();
    }
  });

  test('an unreachable Redis gives JOBS_REDIS_UNAVAILABLE, not a hang', async () => {
    const port = await findFreePort();
    const queue = new JobQueue({ redis: { host: '127.0.0.1', port, maxRetriesPerRequest: 0, retryStrategy: () => null }, queue: 'nowhere', kinds });
    const error = await queue.enqueue('email', { recipient: 'a@example.com' }).catch((e: unknown) => e);
    expect(isJobsError(error, 'JOBS_REDIS_UNAVAILABLE')).toBe(true);
    await queue.close();
  });

  test('Redis at maxmemory with noeviction refuses the enqueue whole: JOBS_REDIS_OOM and nothing written', async () => {
    const server = await startRedisServer({ name: 'oom', args: ['--maxmemory-policy', 'noeviction'] });
    const redis = new Redis(server.url);
    try {
      const queue = new JobQueue({ redis, queue: 'full', kinds });
      await queue.enqueue('email', { recipient: 'before@example.com' });
      const before = await queueKeysIn(redis, 'full');
      await redis.config('SET', 'maxmemory', '1');
      const error = await queue
        .enqueueMany([
          { kind: 'email', payload: { recipient: 'a@example.com' } },
          { kind: 'email', payload: { recipient: 'b@example.com' } },
        ])
        .catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_REDIS_OOM')).toBe(true);
      await redis.config('SET', 'maxmemory', '0');
      expect(await queueKeysIn(redis, 'full')).toEqual(before);
      expect((await queue.stats()).enqueuedTotal).toBe(1);
      await queue.close();
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });

  test('at maxmemory the queue can still drain: claim and complete are allowed', async () => {
    const server = await startRedisServer({ name: 'oom-drain', args: ['--maxmemory-policy', 'noeviction'] });
    const redis = new Redis(server.url);
    try {
      const queue = new JobQueue({ redis, queue: 'full', kinds });
      await queue.enqueue('email', { recipient: 'a@example.com' });
      await redis.config('SET', 'maxmemory', '1');
      const [job] = await queue.claim();
      expect(job).toBeDefined();
      if (job) await queue.complete(job, 'done');
      expect((await queue.stats()).completedTotal).toBe(1);
      await redis.config('SET', 'maxmemory', '0');
      await queue.close();
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });
});
