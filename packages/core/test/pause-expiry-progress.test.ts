import { openRedis, redisTest as test, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, MAX_PROGRESS_BYTES, Queue } from '../src/index.ts';
import { kinds, openQueue, waitUntilBlocked } from './fixtures.ts';

const mail = (n: number) => ({ recipient: 'a@example.com', n });

describe('pause and resume', () => {
  test('a paused queue claims nothing while enqueues go on; resume lets the claims take its jobs in order', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const before = await queue.enqueue('email', mail(1));
    await queue.pause();
    const during = await queue.enqueue('email', mail(2));
    expect(await queue.claim({ max: 10 })).toEqual([]);
    expect(await queue.completeManyAndClaim([], { max: 10 })).toMatchObject({ next: [] });
    expect(await queue.stats()).toMatchObject({ paused: true, pendingDepth: 2 });
    await queue.resume();
    expect((await queue.stats()).paused).toBe(false);
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([before, during]);
    await queue.close();
  });

  test('once pause() resolves, a claim already blocked in Redis starts nothing; resume wakes it within one wake', async ({ redisUrl, redis, queueName }) => {
    const claimer = new Queue({ redis: redisUrl, queue: queueName, kinds, connectionName: `waiter-${queueName}` });
    const admin = openQueue(redis, queueName);
    const claiming = claimer.claim({ blockMs: 60_000 });
    await waitUntilBlocked(redis, `waiter-${queueName}`);
    await admin.pause();
    const id = await admin.enqueue('email', mail(1));
    // The push ended the blocked wait and ran the claim behind it: it took nothing, and waits on.
    await waitUntilBlocked(redis, `waiter-${queueName}`);
    expect(await redis.lrange(admin.keys.pending, 0, -1)).toEqual([id]);
    expect((await admin.getJob(id))?.status).toBe('pending');
    await admin.resume();
    // Its wait is well under a blocking call's 5 s: the resume woke it, no timeout did.
    const [job] = await within(claiming, 4_000, () => 'the blocked claim did not wake on resume');
    expect(job?.id).toBe(id);
    await claimer.close();
    await admin.close();
  });

  test('a job a sweep returns to a paused queue is not claimed', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail(1));
    await queue.claim();
    await queue.pause();
    await redis.zadd(queue.keys.leases, '1', id);
    expect((await queue.reclaimStuck()).reclaimed).toEqual([id]);
    expect(await queue.claim()).toEqual([]);
    await queue.resume();
    expect((await queue.claim())[0]?.id).toBe(id);
    await queue.close();
  });

  test('the pause is kept in Redis: a worker started afterwards (a restart) claims nothing until resume', async ({ redis, queueName }) => {
    const first = openQueue(redis, queueName);
    await first.enqueue('email', mail(1));
    await first.pause();
    await first.close();
    const restarted = openQueue(redis, queueName);
    expect(await restarted.claim()).toEqual([]);
    expect((await restarted.stats()).paused).toBe(true);
    await restarted.resume();
    expect(await restarted.claim()).toHaveLength(1);
    await restarted.close();
  });

  test('a paused kind is skipped (its jobs parked, in order) while other kinds run; resume puts them back first', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.pause({ kind: 'webhook' });
    const hooks = [await queue.enqueue('webhook', { url: 'https://example.com/1' }), await queue.enqueue('webhook', { url: 'https://example.com/2' })];
    const urgentHook = await queue.enqueue('webhook', { url: 'https://example.com/3' }, { priority: 5 });
    const mails = [await queue.enqueue('email', mail(1)), await queue.enqueue('email', mail(2))];
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual(mails);
    expect(await queue.stats()).toMatchObject({ paused: false, pausedKinds: ['webhook'], parkedDepth: 3, pendingDepth: 0 });
    const later = await queue.enqueue('webhook', { url: 'https://example.com/4' });
    await queue.resume({ kind: 'webhook', batch: 1 });
    expect(await queue.stats()).toMatchObject({ pausedKinds: [], parkedDepth: 0 });
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([urgentHook, ...hooks, later]);
    await queue.close();
  });

  test('a parked job can be cancelled', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.pause({ kind: 'email' });
    const id = await queue.enqueue('email', mail(1));
    expect(await queue.claim()).toEqual([]);
    expect(await queue.cancel(id)).toEqual({ cancelled: true, wasRunning: false });
    await queue.resume({ kind: 'email' });
    expect(await queue.claim()).toEqual([]);
    await queue.close();
  });

  test('a partitioned queue pauses and resumes every partition', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 3 });
    await queue.enqueueMany(Array.from({ length: 3 * 1024 + 3 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    await queue.pause();
    for (const partition of queue.partitions) expect(await partition.claim()).toEqual([]);
    expect((await queue.stats()).paused).toBe(true);
    await queue.resume();
    for (const partition of queue.partitions) expect(await partition.claim()).toHaveLength(1);
    await queue.close();
  });

  test('pausing a kind the queue does not have is refused with a typed error', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await expect(queue.pause({ kind: 'nope' })).rejects.toSatisfy((error) => isJobsError(error, 'JOBS_INVALID_ARGUMENT') && error.field === 'kind');
    expect(await redis.exists(queue.keys.admission)).toBe(0);
    await queue.close();
  });
});

describe('expiry', () => {
  test('a job not started before its expiry never runs: it lands in failed with JOBS_EXPIRED, counted', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const stale = await queue.enqueue('email', mail(1), { expiresAt: Date.now() - 60_000 });
    const late = await queue.enqueue('email', mail(2), { delayMs: 50, ttlMs: 20 });
    const fresh = await queue.enqueue('email', mail(3), { ttlMs: 3_600_000 });
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([fresh]);
    const [none] = await queue.claim({ blockMs: 300 });
    expect(none).toBeUndefined();
    for (const id of [stale, late]) {
      const job = await queue.getJob(id);
      expect(job?.status).toBe('failed');
      expect(job?.attempts).toBe(0);
      expect(job?.lastError).toMatch(/^JOBS_EXPIRED: /);
    }
    expect((await queue.getJob(fresh))?.expiresAtMs).toBeGreaterThan(Date.now());
    expect(await queue.stats()).toMatchObject({ expiredTotal: 2, failedTotal: 2, failedDepth: 2 });
    await queue.close();
  });

  test('a negative, zero or fractional ttl, or both ttlMs and expiresAt, is refused and nothing is written', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    for (const options of [{ ttlMs: -1 }, { ttlMs: 0 }, { ttlMs: 1.5 }, { expiresAt: -5 }, { ttlMs: 10, expiresAt: Date.now() + 10 }]) {
      await expect(queue.enqueue('email', mail(1), options)).rejects.toSatisfy((error) => isJobsError(error, 'JOBS_INVALID_ARGUMENT') && /^options\.(ttlMs|expiresAt)$/.test(error.field ?? ''));
    }
    expect((await queue.stats()).enqueuedTotal).toBe(0);
    await queue.close();
  });
});

describe('progress', () => {
  test('progress is stored on the job, fenced by the claim, and published as a processing event', async ({ redis, redisUrl, queueName }) => {
    const subscriber = openRedis(redisUrl);
    const queue = openQueue(redis, queueName);
    const heard: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => heard.push(message));
    await subscriber.subscribe(queue.keys.events);
    const id = await queue.enqueue('email', mail(1));
    const [job] = await queue.claim();
    await queue.progress(job!, { done: 3, of: 10 });
    expect((await queue.getJob(id))?.progress).toEqual({ done: 3, of: 10 });
    await expect.poll(() => heard.map((m) => JSON.parse(m) as unknown)).toContainEqual({ id, status: 'processing', progress: { done: 3, of: 10 }, progress_seq: 1 });

    await redis.zadd(queue.keys.leases, '1', id);
    await queue.reclaimStuck();
    await expect(queue.progress(job!, { done: 4 })).rejects.toSatisfy((error) => isJobsError(error, 'JOBS_LOST_CLAIM'));
    expect((await queue.getJob(id))?.progress).toEqual({ done: 3, of: 10 });
    await subscriber.quit();
    await queue.close();
  });

  test('progress too large or not JSON is refused with a typed error, and nothing is written', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail(1));
    const [job] = await queue.claim();
    await expect(queue.progress(job!, 'x'.repeat(MAX_PROGRESS_BYTES))).rejects.toSatisfy((error) => isJobsError(error, 'JOBS_PAYLOAD_TOO_LARGE') && error.field === 'progress');
    await expect(queue.progress(job!, { when: new Date() })).rejects.toSatisfy((error) => isJobsError(error, 'JOBS_NOT_SERIALIZABLE'));
    expect((await queue.getJob(id))?.fields.progress).toBeUndefined();
    await queue.close();
  });
});
