import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, type ClaimedJob } from '../src/index.ts';
import { openQueue } from './fixtures.ts';

describe('cancel', () => {
  test('cancels a pending job: it leaves pending and is never claimed', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { cancelledTtlSeconds: 60 });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    expect(await queue.cancel(id)).toEqual({ cancelled: true, wasRunning: false });
    expect(await queue.cancel(id)).toEqual({ cancelled: false, status: 'cancelled' });
    expect(await redis.llen(`queue:{${queueName}}:pending`)).toBe(0);
    expect((await queue.getJob(id))?.status).toBe('cancelled');
    expect(await redis.ttl(`queue:{${queueName}}:job:${id}`)).toBeGreaterThan(50);
    expect(await queue.claim()).toEqual([]);
    expect((await queue.stats()).cancelledTotal).toBe(1);
    await queue.close();
  });

  test('cancels a delayed job', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' }, { delayMs: 60_000 });
    expect(await queue.cancel(id)).toEqual({ cancelled: true, wasRunning: false });
    expect(await redis.zcard(`queue:{${queueName}}:delayed`)).toBe(0);
    await queue.close();
  });

  test('leaves a finished job alone and says why; an unknown id is not_found', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(job, 1);
    expect(await queue.cancel(id)).toEqual({ cancelled: false, status: 'completed' });
    expect(await queue.cancel('0000000000000000')).toEqual({ cancelled: false, status: 'not_found' });
    const error = await queue.cancel('bad id*').catch((e: unknown) => e);
    expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT')).toBe(true);
    await queue.close();
  });
});

describe('views', () => {
  test('stats is one snapshot of depths, counters and the oldest pending age', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 4_000 });
    expect(await queue.stats()).toMatchObject({ pendingDepth: 0, enqueuedTotal: 0, oldestPendingAgeMs: null, visibilityMs: 4_000 });
    for (let n = 0; n < 4; n += 1) await queue.enqueue('email', { recipient: 'a@example.com', n });
    await queue.enqueue('email', { recipient: 'a@example.com' }, { delayMs: 60_000 });
    const [a, b] = (await queue.claim({ max: 2 })) as [ClaimedJob, ClaimedJob];
    await queue.complete(a, 1);
    await queue.fail(b, 'x', { permanent: true });
    const stats = await queue.stats();
    expect(stats).toMatchObject({
      enqueuedTotal: 5,
      completedTotal: 1,
      failedTotal: 1,
      pendingDepth: 2,
      processingDepth: 0,
      delayedDepth: 1,
      completedDepth: 1,
      failedDepth: 1,
    });
    expect(stats.oldestPendingAgeMs).toBeGreaterThanOrEqual(0);
    await queue.close();
  });

  test('list shows pending oldest first, delayed soonest first, and pages', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ids = [];
    for (let n = 0; n < 5; n += 1) ids.push(await queue.enqueue('email', { recipient: 'a@example.com', n }));
    expect((await queue.list('pending')).map((j) => j.id)).toEqual(ids);
    expect((await queue.list('pending', { offset: 1, limit: 2 })).map((j) => j.id)).toEqual(ids.slice(1, 3));
    const later = await queue.enqueue('email', { recipient: 'a@example.com' }, { delayMs: 90_000 });
    const sooner = await queue.enqueue('email', { recipient: 'a@example.com' }, { delayMs: 30_000 });
    expect((await queue.list('delayed')).map((j) => j.id)).toEqual([sooner, later]);
    const [job] = await queue.list('pending', { limit: 1 });
    expect(job).toMatchObject({ status: 'pending', payload: { kind: 'email', recipient: 'a@example.com', n: 0 } });
    const error = await queue.list('bogus' as 'pending').catch((e: unknown) => e);
    expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT')).toBe(true);
    await queue.close();
  });

  test('getJob reads a hash with a non-JSON payload without throwing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await redis.hset(`queue:{${queueName}}:job:garbage1`, { id: 'garbage1', payload: '{not json', status: 'pending' });
    const record = await queue.getJob('garbage1');
    expect(record?.payload).toBeUndefined();
    expect(record?.rawPayload).toBe('{not json');
    expect(queue.kinds.decode(record?.rawPayload)).toMatchObject({ ok: false, reason: expect.stringMatching(/not JSON/) });
    expect(await queue.getJob('nope')).toBeNull();
    await queue.close();
  });
});
