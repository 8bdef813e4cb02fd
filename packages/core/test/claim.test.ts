import { openRedis, redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { LEASE_INDEX_ANCHOR } from '../src/generated/constants.ts';
import { Queue } from '../src/index.ts';
import { kinds, openQueue, waitUntilBlocked } from './fixtures.ts';

describe('claim', () => {
  test('moves the job to processing and stamps token, claimed_at_ms, attempts and lease in one step', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 5_000 });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = await queue.claim();
    expect(job?.id).toBe(id);
    expect(job?.token).toMatch(/^[0-9a-f]{16}$/);
    expect(job?.attempts).toBe(1);
    expect(job?.kind).toBe('email');
    expect(job?.payload).toEqual({ kind: 'email', recipient: 'a@example.com' });
    const hash = await redis.hgetall(`queue:{${queueName}}:job:${id}`);
    expect(hash).toMatchObject({ status: 'processing', claim_token: job?.token, attempts: '1', max_attempts: '3' });
    expect(Number(hash.lease_expires_at_ms) - Number(hash.claimed_at_ms)).toBe(5_000);
    expect(await redis.zscore(`queue:{${queueName}}:leases`, id)).toBe(hash.lease_expires_at_ms);
    expect(await redis.lrange(`queue:{${queueName}}:processing`, 0, -1)).toEqual([id]);
    expect(await redis.llen(`queue:{${queueName}}:pending`)).toBe(0);
    await queue.close();
  });

  test('a job enqueued with its own visibility gets that lease length', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 5_000 });
    await queue.enqueue('thumbnail', { image: 'a.png', width: 10 });
    await queue.enqueue('email', { recipient: 'a@example.com' }, { visibilityMs: 777 });
    const [thumb, mail] = await queue.claim({ max: 2 });
    expect((thumb?.leaseExpiresAtMs ?? 0) - (thumb?.claimedAtMs ?? 0)).toBe(120_000);
    expect((mail?.leaseExpiresAtMs ?? 0) - (mail?.claimedAtMs ?? 0)).toBe(777);
    await queue.close();
  });

  test('claims several jobs in one call, oldest first', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ids = [];
    for (let n = 0; n < 5; n += 1) ids.push(await queue.enqueue('email', { recipient: 'a@example.com', n }));
    const jobs = await queue.claim({ max: 3 });
    expect(jobs.map((j) => j.id)).toEqual(ids.slice(0, 3));
    expect(new Set(jobs.map((j) => j.token)).size).toBe(3);
    expect((await queue.claim({ max: 10 })).map((j) => j.id)).toEqual(ids.slice(3));
    await queue.close();
  });

  test('an empty queue returns no job at once when not asked to wait', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    expect(await queue.claim({ max: 4 })).toEqual([]);
    await queue.close();
  });

  test('a blocked claim wakes when a job is enqueued', async ({ redisUrl, redis, queueName }) => {
    const queue = new Queue({ redis: redisUrl, queue: queueName, kinds, connectionName: `waiter-${queueName}` });
    const producer = openQueue(redis, queueName);
    const claiming = queue.claim({ blockMs: 10_000 });
    // The claim is blocked in Redis before we enqueue.
    await waitUntilBlocked(redis, `waiter-${queueName}`);
    const id = await producer.enqueue('email', { recipient: 'late@example.com' });
    const [job] = await claiming;
    expect(job?.id).toBe(id);
    await queue.close();
    await producer.close();
  });

  test('a blocked claim wakes for a job pushed by a recipe client (plain LPUSH)', async ({ redisUrl, redis, queueName }) => {
    const queue = new Queue({ redis: redisUrl, queue: queueName, kinds, connectionName: `waiter-${queueName}` });
    const claiming = queue.claim({ blockMs: 10_000 });
    await waitUntilBlocked(redis, `waiter-${queueName}`);
    await redis.hset(`queue:{${queueName}}:job:recipe1`, { id: 'recipe1', payload: '{"kind":"email","recipient":"r@example.com"}', status: 'pending', attempts: '0', enqueued_at_ms: String(Date.now()), claim_token: '' });
    await redis.lpush(`queue:{${queueName}}:pending`, 'recipe1');
    const [job] = await claiming;
    expect(job?.id).toBe('recipe1');
    await queue.close();
  });

  test('a blocked claim wakes when a delayed job comes due', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'soon@example.com' }, { delayMs: 300 });
    const [job] = await queue.claim({ blockMs: 10_000 });
    expect(job?.id).toBe(id);
    const record = await queue.getJob(id);
    expect(Number(job?.claimedAtMs)).toBeGreaterThanOrEqual(Number(record?.runAtMs));
    await queue.close();
  });

  test('a blocked claim returns empty after its wait, and an aborted one at once', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    expect(await queue.claim({ blockMs: 50 })).toEqual([]);
    const controller = new AbortController();
    const claiming = queue.claim({ blockMs: 60_000, signal: controller.signal });
    controller.abort();
    expect(await claiming).toEqual([]);
    await queue.close();
  });

  test('an id whose hash is gone is dropped from processing, not run', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await redis.lpush(`queue:{${queueName}}:pending`, 'ghost');
    const id = await queue.enqueue('email', { recipient: 'real@example.com' });
    const jobs = await queue.claim({ max: 2 });
    expect(jobs.map((j) => j.id)).toEqual([id]);
    expect(await redis.lrange(`queue:{${queueName}}:processing`, 0, -1)).toEqual([id]);
    expect((await queue.stats()).droppedTotal).toBe(1);
    await queue.close();
  });

  test('the lease index stays a skiplist, and its anchor is never a lease', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const leases = `queue:{${queueName}}:leases`;
    await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = await queue.claim();
    expect(await redis.object('ENCODING', leases)).toBe('skiplist');
    expect(await redis.zrange(leases, '-inf', '+inf', 'BYSCORE')).toEqual([job!.id, LEASE_INDEX_ANCHOR]);
    await queue.complete(job!, null);
    expect(await redis.zrange(leases, '0', '-1')).toEqual([LEASE_INDEX_ANCHOR]);
    expect(await queue.reclaimStuck()).toMatchObject({ reclaimed: [] });
    expect(await redis.zrange(leases, '0', '-1')).toEqual([LEASE_INDEX_ANCHOR]);
    await queue.close();
  });

  // Every TTL on a job's hash is set as it finishes: a recipe client's late stamp after its own
  // complete (the recipe's B1) leaves completed_at_ms, and its final fail leaves last_error.
  test.for([
    ['completed once (completed_at_ms)', { completed_at_ms: '1715441000456' }],
    ['failed for good once (last_error)', { last_error: 'smtp timeout', last_error_at_ms: '1715441000456' }],
  ] as const)('a claimed hash that carried a TTL, %s, does not expire mid-job', async ([, fields], { redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    await redis.hset(`queue:{${queueName}}:job:${id}`, fields);
    await redis.expire(`queue:{${queueName}}:job:${id}`, 300);
    expect((await queue.claim()).map((job) => job.id)).toEqual([id]);
    expect(await redis.ttl(`queue:{${queueName}}:job:${id}`)).toBe(-1);
    await queue.close();
  });

  test('two claimers never get the same job: 8 concurrent claimers on 10,000 jobs claim each exactly once', async ({ redisUrl, redis, queueName }) => {
    const producer = openQueue(redis, queueName);
    const total = 10_000;
    for (let start = 0; start < total; start += 1_000) {
      await producer.enqueueMany(Array.from({ length: 1_000 }, (_, i) => ({ kind: 'email' as const, payload: { recipient: 'x@example.com', n: start + i } })));
    }
    const connections = Array.from({ length: 8 }, () => openRedis(redisUrl));
    const claimers = connections.map((connection) => openQueue(connection, queueName));
    const seen: string[][] = await Promise.all(
      claimers.map(async (queue, index) => {
        const mine: string[] = [];
        for (;;) {
          const jobs = await queue.claim({ max: 1 + (index % 4) * 5 });
          if (jobs.length === 0) return mine;
          mine.push(...jobs.map((j) => j.id));
        }
      }),
    );
    const all = seen.flat();
    expect(all).toHaveLength(total);
    expect(new Set(all).size).toBe(total);
    expect(seen.filter((ids) => ids.length > 0).length).toBeGreaterThan(1);
    const stats = await producer.stats();
    expect(stats.processingDepth).toBe(total);
    expect(stats.pendingDepth).toBe(0);
    expect(await redis.zcount(`queue:{${queueName}}:leases`, '-inf', '(+inf')).toBe(total);
    await Promise.all(claimers.map((q) => q.close()));
    for (const connection of connections) connection.disconnect();
    await producer.close();
  });
});
