import type { JobRecord } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { channelSubscribers, redisTest as test, within, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, type Worker } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

// A worker waiting for work blocks for up to `idleWaitMs` when it knows of no delayed job due
// sooner (a plain queue's claim in calls of 5 s at most; a partition is asked again after half of
// it). Without the wake notices, a delayed job added during that wait starts only when the wait
// ends, some 4.7 s late here; with them, when it is due. The wait is long so that a loaded
// machine's lag, which delays both, cannot blur the two.
const IDLE_WAIT_MS = 10_000;
const LATE_MS = 2_500;

/** A worker on `queue`; `done(n)` settles once the email job with payload `n` is completed. */
function timedWorker(redis: TestRedis, queue: string, partitions = 1): { worker: Worker<unknown>; done: (n: number) => Promise<void> } {
  const worker = createWorker({
    redis,
    queue,
    kinds,
    partitions,
    reclaimIntervalMs: 0,
    idleWaitMs: IDLE_WAIT_MS,
    handlers: {
      ...okHandlers,
      email: ({ recipient }) => ({ sentTo: recipient }),
    },
  }) as Worker<unknown>;
  const completed = new Set<number>();
  worker.on('completed', ({ job }) => completed.add((job.payload as { n: number }).n));
  const until = async (test: () => boolean): Promise<void> => {
    while (!test()) await new Promise((resolve) => worker.once('completed', resolve));
  };
  return { worker, done: (n) => within(until(() => completed.has(n)), 15_000, () => `job ${n} was not done`) };
}

describe('delayed jobs on a waiting worker', () => {
  test('a delayed job enqueued while the worker waits for work starts when it is due, not when the wait ends', async ({ redis, queueName }) => {
    const { worker, done } = timedWorker(redis, queueName);
    const producer = createProducer({ redis, queue: queueName, kinds });
    // A job done, so the worker has just gone back to waiting, knowing of no delayed job.
    await producer.enqueue('email', { recipient: 'a@example.com', n: 0 });
    await done(0);
    const id = await producer.enqueue('email', { recipient: 'a@example.com', n: 1 }, { delayMs: 300 });
    await done(1);
    // When it was due and when it was claimed, both on the Redis clock.
    const job = await producer.getJob(id);
    const lateness = (job?.claimedAtMs ?? Number.NaN) - (job?.runAtMs ?? Number.NaN);
    expect(lateness).toBeGreaterThanOrEqual(0);
    expect(lateness).toBeLessThan(LATE_MS);
    await worker.close();
    await producer.close();
  });

  test('a retry waiting out its backoff starts when the backoff is over', async ({ redis, queueName }) => {
    let attempts = 0;
    let retry = undefined as JobRecord | null | undefined;
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      reclaimIntervalMs: 0,
      idleWaitMs: IDLE_WAIT_MS,
      // Invoice has no backoff of its own: the queue's applies.
      backoff: { type: 'fixed', delayMs: 300 },
      handlers: {
        ...okHandlers,
        invoice: async ({ customerId, cents }, { id }) => {
          attempts += 1;
          if (attempts === 1) throw new Error('card declined, try again');
          // The job as Redis holds it during the retry: when the first attempt failed, when the
          // retry was due and when it was claimed, all on the Redis clock.
          retry = await producer.getJob(id);
          return { charged: cents, customerId };
        },
      },
    });
    const producer = createProducer({ redis, queue: queueName, kinds });
    const done = new Promise((resolve) => worker.once('completed', resolve));
    const id = await producer.enqueue('invoice', { customerId: 'c1', cents: 100 });
    await within(done, 15_000, () => 'the retried job was not done');
    expect(attempts).toBe(2);
    expect(retry?.id).toBe(id);
    expect((retry?.runAtMs ?? Number.NaN) - (retry?.lastErrorAtMs ?? Number.NaN)).toBe(300);
    const lateness = (retry?.claimedAtMs ?? Number.NaN) - (retry?.runAtMs ?? Number.NaN);
    expect(lateness).toBeGreaterThanOrEqual(0);
    expect(lateness).toBeLessThan(LATE_MS);
    await worker.close();
    await producer.close();
  });

  test('on a partitioned queue, the worker listens on every partition and starts their delayed jobs when due', async ({ redis, queueName }) => {
    const { worker, done } = timedWorker(redis, queueName, 3);
    // Its wait on an empty partition grows from 100 ms to half of idleWaitMs, so the timing alone
    // might pass by luck so soon after the start: the worker must also be heard listening on each
    // partition's channel.
    const channels = [0, 1, 2].map((index) => `queue:{${queueName}:p${index}}:wake`);
    await worker.ready();
    expect(await channelSubscribers(redis, channels)).toEqual([1, 1, 1]);
    const producer = createProducer({ redis, queue: queueName, kinds, partitions: 3 });
    const ids: string[] = [];
    for (let n = 0; n < 3; n += 1) ids.push(await producer.enqueue('email', { recipient: 'a@example.com', n }, { delayMs: 200, partitionKey: `key-${n}` }));
    for (let n = 0; n < 3; n += 1) await done(n);
    // Due and claimed, on the Redis clock.
    for (const id of ids) {
      const job = await producer.getJob(id);
      expect((job?.claimedAtMs ?? Number.NaN) - (job?.runAtMs ?? Number.NaN)).toBeLessThan(LATE_MS);
    }
    await worker.close();
    await producer.close();
  });
});
