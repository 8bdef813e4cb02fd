import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { defineKinds, isJobsError, Queue } from '../src/index.ts';
import { kinds, openQueue, waitUntilBlocked } from './fixtures.ts';

const mail = (n: number) => ({ recipient: 'a@example.com', n });

describe('priorities', () => {
  test('with 100,000 default-priority jobs waiting, a newly enqueued higher-priority job is the next one claimed', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    for (let start = 0; start < 100_000; start += 10_000) {
      await queue.enqueueMany(Array.from({ length: 10_000 }, (_, i) => ({ kind: 'email' as const, payload: mail(start + i) })));
    }
    const urgent = await queue.enqueue('email', mail(100_000), { priority: 10 });
    const [first, second] = await queue.claim({ max: 2 });
    expect(first?.id).toBe(urgent);
    expect(first?.priority).toBe(10);
    expect(second?.payload).toMatchObject({ n: 0 });
    expect((await queue.stats()).pendingDepth).toBe(99_999);
    await queue.close();
  }, 90_000);

  test('claims the highest priority first, FIFO within a priority, the default (0) between the positive and negative ones', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const order: [number | undefined, string][] = [];
    for (const [n, priority] of [[0, -5], [1, undefined], [2, 3], [3, 7], [4, 3], [5, -5], [6, 0], [7, 7], [8, -1]] as const) {
      order.push([priority, await queue.enqueue('email', mail(n), priority === undefined ? undefined : { priority })]);
    }
    const jobs = await queue.claim({ max: 20 });
    expect(jobs.map((job) => (job.payload as { n: number }).n)).toEqual([3, 7, 2, 4, 1, 6, 8, 0, 5]);
    expect((await queue.stats()).prioritizedDepth).toBe(0);
    await queue.close();
  });

  test('a job enqueued without a priority gets its kind default, then 0: never before every prioritized job', async ({ redis, queueName }) => {
    const withDefaults = defineKinds({
      report: { schema: { type: 'object', properties: { n: { type: 'integer' } } }, priority: -10 },
      alert: { schema: { type: 'object', properties: { n: { type: 'integer' } } }, priority: 50 },
      plain: { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
    });
    const queue = new Queue({ redis, queue: queueName, kinds: withDefaults });
    const high = await queue.enqueue('plain', { n: 1 }, { priority: 5 });
    const plain = await queue.enqueue('plain', { n: 2 });
    const report = await queue.enqueue('report', { n: 3 });
    const alert = await queue.enqueue('alert', { n: 4 });
    const urgentReport = await queue.enqueue('report', { n: 5 }, { priority: 100 });
    expect((await queue.getJob(report))?.priority).toBe(-10);
    expect((await queue.getJob(plain))?.priority).toBe(0);
    expect((await queue.getJob(plain))?.fields.priority).toBeUndefined();
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([urgentReport, alert, high, plain, report]);
    await queue.close();
  });

  test('retried, released, reclaimed, delayed-retry and redriven jobs keep their priority', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 60_000, maxAttempts: 10 });
    const important = await queue.enqueue('email', mail(0), { priority: 9 });
    await queue.enqueueMany(Array.from({ length: 5 }, (_, i) => ({ kind: 'email' as const, payload: mail(i + 1) })));
    const next = async (): Promise<string | undefined> => (await queue.claim())[0]?.id;

    let [job] = await queue.claim();
    expect(job?.id).toBe(important);
    expect(await queue.fail(job!, new Error('again'), { retryDelayMs: 0 })).toBe('retried');
    [job] = await queue.claim();
    expect(job?.id).toBe(important);

    expect(await queue.release([job!])).toEqual([true]);
    [job] = await queue.claim();
    expect(job?.id).toBe(important);

    expect(await queue.fail(job!, new Error('later'), { retryDelayMs: 30 })).toBe('delayed');
    await waitFor(async () => (await queue.promoteDue()).promoted === 1 || (await queue.getJob(important))?.status === 'pending', { what: 'the delayed retry promoted' });
    expect(await next()).toBe(important);

    // Reclaimed: its lease made to expire now.
    await redis.zadd(queue.keys.leases, '1', important);
    expect((await queue.reclaimStuck()).reclaimed).toEqual([important]);
    [job] = await queue.claim();
    expect(job?.id).toBe(important);

    expect(await queue.fail(job!, new Error('for good'), { permanent: true })).toBe('failed');
    expect(await queue.retry([important])).toEqual([true]);
    expect(await next()).toBe(important);
    expect((await queue.getJob(important))?.priority).toBe(9);
    await queue.close();
  });

  test('a claim blocked on an empty queue wakes for a job of another priority, and FIFO holds for the jobs behind it', async ({ redisUrl, redis, queueName }) => {
    const claimer = new Queue({ redis: redisUrl, queue: queueName, kinds, connectionName: `waiter-${queueName}` });
    const producer = openQueue(redis, queueName);
    const claiming = claimer.claim({ blockMs: 60_000 });
    await waitUntilBlocked(redis, `waiter-${queueName}`);
    const first = await producer.enqueue('email', mail(1), { priority: 4 });
    expect((await claiming)[0]?.id).toBe(first);

    const a = await producer.enqueue('email', mail(2), { priority: 4 });
    const b = await producer.enqueue('email', mail(3), { priority: 4 });
    const low = await producer.enqueue('email', mail(4), { priority: -4 });
    const plain = await producer.enqueue('email', mail(5));
    expect((await claimer.claim({ max: 10 })).map((job) => job.id)).toEqual([a, b, plain, low]);
    await claimer.close();
    await producer.close();
  });

  test('after a prioritized job is retried at once, a blocking claim takes the next waiting job without waiting for a push', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { maxAttempts: 5 });
    const ids: string[] = [];
    for (let n = 0; n < 3; n += 1) ids.push(await queue.enqueue('email', mail(n), { priority: 1 }));
    const [first] = await queue.claim({ max: 1 });
    expect(first?.id).toBe(ids[0]);
    // Back onto its priority's list: pending is empty while two jobs wait behind it.
    expect(await queue.fail(first!, new Error('once'), { retryDelayMs: 0 })).toBe('retried');
    const failedAt = Number((await queue.getJob(ids[0]!))?.fields.last_error_at_ms);
    const [next] = await queue.claim({ blockMs: 60_000 });
    expect(next?.id).toBe(ids[1]);
    // Redis times: a claim that blocked on pending would wait out its 5 s block first.
    const claimedAt = Number((await queue.getJob(ids[1]!))?.fields.claimed_at_ms);
    expect(claimedAt - failedAt).toBeLessThan(2_500);
    await queue.close();
  });

  test('a claim that came back empty, then finds a job of another priority taken by another claimer, still sees the jobs left on that priority', async ({ redis, queueName }) => {
    const first = openQueue(redis, queueName);
    const other = openQueue(redis, queueName);
    expect(await first.claim({ max: 2 })).toEqual([]);
    // The first job wakes blocked claims from pending; the next two wait on their priority's list.
    const ids: string[] = [];
    for (let n = 0; n < 3; n += 1) ids.push(await first.enqueue('email', mail(n), { priority: 3 }));
    expect((await other.claim({ max: 1 }))[0]?.id).toBe(ids[0]);
    const [next] = await first.claim({ blockMs: 60_000 });
    expect(next?.id).toBe(ids[1]);
    // Redis times: a claim that blocked on the empty pending list would wait out its 5 s block.
    const enqueuedAt = Number((await first.getJob(ids[2]!))?.fields.enqueued_at_ms);
    const claimedAt = Number((await first.getJob(ids[1]!))?.fields.claimed_at_ms);
    expect(claimedAt - enqueuedAt).toBeLessThan(2_500);
    await first.close();
    await other.close();
  });

  test('a job of a lower priority that woke the claims still waits behind the default jobs enqueued after it', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const low = await queue.enqueue('email', mail(1), { priority: -1 });
    const plain = await queue.enqueue('email', mail(2));
    expect((await queue.claim({ max: 1 }))[0]?.id).toBe(plain);
    expect((await queue.claim({ max: 1 }))[0]?.id).toBe(low);
    // With nothing of another priority left, claims go back to reading pending alone.
    expect(await redis.exists(queue.keys.admission)).toBe(0);
    await queue.close();
  });

  test('a job of another priority can be cancelled, and is counted while it waits', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', mail(0));
    const id = await queue.enqueue('email', mail(1), { priority: 2 });
    expect((await queue.stats()).prioritizedDepth).toBe(1);
    expect(await queue.cancel(id)).toEqual({ cancelled: true, wasRunning: false });
    expect((await queue.stats()).prioritizedDepth).toBe(0);
    expect((await queue.claim({ max: 5 })).map((job) => job.payload)).toEqual([{ kind: 'email', ...mail(0) }]);
    await queue.close();
  });

  test('cancelling the only carrier on pending puts the next prioritized job there, so claims blocked on pending still see work', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const pending = `queue:{${queueName}}:pending`;
    // The first job of another priority on an empty queue waits on pending, as its carrier; the
    // second goes to its level's list.
    const carrier = await queue.enqueue('email', mail(0), { priority: 3 });
    const next = await queue.enqueue('email', mail(1), { priority: 3 });
    expect(await redis.lrange(pending, 0, -1)).toEqual([carrier]);
    expect(await queue.cancel(carrier)).toEqual({ cancelled: true, wasRunning: false });
    // A claim blocked on pending wakes only for what is on pending.
    expect(await redis.lrange(pending, 0, -1)).toEqual([next]);
    const stats = await queue.stats();
    expect(stats.pendingDepth + stats.prioritizedDepth).toBe(1);
    expect((await queue.claim({ max: 5 })).map((job) => job.id)).toEqual([next]);
    await queue.close();
  });

  test('a priority out of range, not whole, or not a number is refused with a typed error, and nothing is written', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    for (const priority of [1001, -1001, 1.5, Number.NaN, '3']) {
      const attempt = queue.enqueue('email', mail(0), { priority: priority as number });
      await expect(attempt).rejects.toSatisfy((error) => isJobsError(error, 'JOBS_INVALID_ARGUMENT') && error.field === 'options.priority');
    }
    await expect(queue.enqueueMany([{ kind: 'email', payload: mail(0) }, { kind: 'email', payload: mail(1), options: { priority: 5000 } }])).rejects.toSatisfy(
      (error) => isJobsError(error, 'JOBS_INVALID_ARGUMENT') && error.field === 'jobs[1].options.priority',
    );
    expect(() => defineKinds({ k: { schema: { type: 'object' }, priority: 2000 } })).toThrow(/kinds\.k\.priority/);
    expect((await queue.stats()).enqueuedTotal).toBe(0);
    expect(await redis.exists(queue.keys.pending, queue.keys.priorities, queue.keys.admission)).toBe(0);
    await queue.close();
  });
});
