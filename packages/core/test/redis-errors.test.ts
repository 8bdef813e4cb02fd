import { findFreePort, startRedisServer } from '@jobs/dev-redis';
import { isClusterRun, queueKeysIn, waitFor, within } from '@jobs/testing';
import { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { isJobsError, Queue } from '../src/index.ts';
import { toJobsError } from '../src/internal.ts';
import { unreachableReason } from '../src/redis-connection.ts';
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
      const queue = new Queue({ redis: url, queue: 'perm', kinds });
      await queue.enqueue('email', { recipient: 'a@example.com' });
      const error = await queue.claim().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'JOBS_REDIS_NOPERM' });
      expect((await new Queue({ redis: admin, queue: 'perm', kinds }).stats()).droppedTotal).toBe(0);
      await queue.close();
    } finally {
      admin.disconnect();
      await server.stop();
    }
  });

  test('an unreachable Redis gives JOBS_REDIS_UNAVAILABLE, not a hang', async () => {
    const port = await findFreePort();
    const queue = new Queue({ redis: { host: '127.0.0.1', port, maxRetriesPerRequest: 0, retryStrategy: () => null }, queue: 'nowhere', kinds });
    const error = await queue.enqueue('email', { recipient: 'a@example.com' }).catch((e: unknown) => e);
    expect(isJobsError(error, 'JOBS_REDIS_UNAVAILABLE')).toBe(true);
    await queue.close();
  });

  test('a Redis that refuses the connection is reported as such, with its address and not the password, long before the command timeout; the queue works once Redis is there', async () => {
    const port = await findFreePort();
    // A command timeout of a minute: an answer within the 20 s bound below cannot be a timeout.
    const queue = new Queue({ redis: `redis://app:s3cret-pw@127.0.0.1:${port}/0`, queue: 'refused', kinds, commandTimeoutMs: 60_000 });
    const error = await within(queue.enqueue('email', { recipient: 'a@example.com' }).catch((e: unknown) => e), 20_000, () => 'the refused enqueue to fail');
    expect(isJobsError(error, 'JOBS_REDIS_UNAVAILABLE')).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain(`redis://app:***@127.0.0.1:${port}/0 refused the connection (ECONNREFUSED)`);
    expect(message).not.toMatch(/s3cret-pw|timed out|maxRetriesPerRequest/);
    // The client keeps reconnecting: once a Redis listens there (without the user: none is
    // needed for a refusal), the next attempts reach it.
    const server = await startRedisServer({ name: 'refused', port, args: ['--user', 'app', 'on', '>s3cret-pw', '~*', '&*', '+@all'] });
    try {
      const id = await waitFor(() => queue.enqueue('email', { recipient: 'b@example.com' }).catch(() => undefined), { what: 'an enqueue once Redis is up', timeoutMs: 20_000 });
      expect((await queue.getJob(id))?.status).toBe('pending');
      // The refused enqueue was taken off the client's queue, not sent once Redis came.
      expect(await queue.stats()).toMatchObject({ enqueuedTotal: 1, pendingDepth: 1 });
      await queue.close();
    } finally {
      await server.stop();
    }
  });

  test('connection failures are worded without ioredis option names, and name the address', () => {
    const reached = toJobsError(new Error('Reached the max retries per request limit (which is 20). Refer to "maxRetriesPerRequest" option for details.'));
    expect(reached).toMatchObject({ code: 'JOBS_REDIS_UNAVAILABLE', message: 'Redis is unavailable: the connection to Redis failed 21 times in a row while the command waited' });
    expect(toJobsError(new Error('Command timed out'))).toMatchObject({ message: 'Redis is unavailable: no reply within the command timeout (commandTimeoutMs)' });
    expect(unreachableReason(Object.assign(new Error('getaddrinfo ENOTFOUND redis.internal'), { code: 'ENOTFOUND' }), 'redis.internal:6379')).toBe('redis.internal:6379 is a host name that does not resolve (ENOTFOUND)');
    expect(unreachableReason(new Error('read ECONNRESET'), 'x:1')).toBeUndefined();
  });

  test('Redis at maxmemory with noeviction refuses the enqueue whole: JOBS_REDIS_OOM and nothing written', async () => {
    const server = await startRedisServer({ name: 'oom', args: ['--maxmemory-policy', 'noeviction'] });
    const redis = new Redis(server.url);
    try {
      const queue = new Queue({ redis, queue: 'full', kinds });
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
      const queue = new Queue({ redis, queue: 'full', kinds });
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
