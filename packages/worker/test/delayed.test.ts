import { createProducer } from '@jobs/producer';
import { channelSubscribers, redisTest as test, within, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, type Worker } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

// A worker waiting for work blocks for up to a second (half a second per partition) when it
// knows of no delayed job due sooner; before the wake notices, a delayed job added during that
// wait started only when the wait ended: some 700 ms late in the first two tests below.
const LATE_MS = 350;

/**
 * A worker on `queue` whose email handler records when each job's `n` started; `done(n)` settles
 * once job `n` is completed.
 */
function timedWorker(redis: TestRedis, queue: string, partitions = 1): { worker: Worker<unknown>; started: Map<number, number>; done: (n: number) => Promise<void> } {
  const started = new Map<number, number>();
  const worker = createWorker({
    redis,
    queue,
    kinds,
    partitions,
    reclaimIntervalMs: 0,
    handlers: {
      ...okHandlers,
      email: ({ recipient, n }) => {
        started.set(n ?? -1, Date.now());
        return { sentTo: recipient };
      },
    },
  }) as Worker<unknown>;
  const completed = new Set<number>();
  worker.on('completed', ({ job }) => completed.add((job.payload as { n: number }).n));
  const until = async (test: () => boolean): Promise<void> => {
    while (!test()) await new Promise((resolve) => worker.once('completed', resolve));
  };
  return { worker, started, done: (n) => within(until(() => completed.has(n)), 5_000, () => `job ${n} was not done`) };
}

describe('delayed jobs on a waiting worker', () => {
  test('a delayed job enqueued while the worker waits for work starts when it is due, not when the wait ends', async ({ redis, queueName }) => {
    const { worker, started, done } = timedWorker(redis, queueName);
    const producer = createProducer({ redis, queue: queueName, kinds });
    // A job done, so the worker has just gone back to waiting, knowing of no delayed job.
    await producer.enqueue('email', { recipient: 'a@example.com', n: 0 });
    await done(0);
    const dueAt = Date.now() + 300;
    await producer.enqueue('email', { recipient: 'a@example.com', n: 1 }, { delayMs: 300 });
    await done(1);
    const lateness = (started.get(1) as number) - dueAt;
    expect(lateness).toBeGreaterThanOrEqual(-5);
    expect(lateness).toBeLessThan(LATE_MS);
    await worker.close();
    await producer.close();
  });

  test('a retry waiting out its backoff starts when the backoff is over', async ({ redis, queueName }) => {
    const attempts: number[] = [];
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      reclaimIntervalMs: 0,
      // Invoice has no backoff of its own: the queue's applies.
      backoff: { type: 'fixed', delayMs: 300 },
      handlers: {
        ...okHandlers,
        invoice: ({ customerId, cents }) => {
          attempts.push(Date.now());
          if (attempts.length === 1) throw new Error('card declined, try again');
          return { charged: cents, customerId };
        },
      },
    });
    const producer = createProducer({ redis, queue: queueName, kinds });
    const done = new Promise((resolve) => worker.once('completed', resolve));
    await producer.enqueue('invoice', { customerId: 'c1', cents: 100 });
    await within(done, 5_000, () => 'the retried job was not done');
    expect(attempts).toHaveLength(2);
    const gap = (attempts[1] as number) - (attempts[0] as number);
    expect(gap).toBeGreaterThanOrEqual(295);
    expect(gap).toBeLessThan(300 + LATE_MS);
    await worker.close();
    await producer.close();
  });

  test('on a partitioned queue, the worker listens on every partition and starts their delayed jobs when due', async ({ redis, queueName }) => {
    const { worker, started, done } = timedWorker(redis, queueName, 3);
    // Its wait on empty partitions lasts up to half a second, so the timing alone might pass by
    // luck: the worker must also be heard listening on each partition's channel.
    const channels = [0, 1, 2].map((index) => `queue:{${queueName}:p${index}}:wake`);
    await worker.ready();
    expect(await channelSubscribers(redis, channels)).toEqual([1, 1, 1]);
    const producer = createProducer({ redis, queue: queueName, kinds, partitions: 3 });
    const dues = new Map<number, number>();
    for (let n = 0; n < 3; n += 1) {
      dues.set(n, Date.now() + 200);
      await producer.enqueue('email', { recipient: 'a@example.com', n }, { delayMs: 200, partitionKey: `key-${n}` });
    }
    for (const n of dues.keys()) await done(n);
    for (const [n, due] of dues) expect((started.get(n) as number) - due).toBeLessThan(LATE_MS);
    await worker.close();
    await producer.close();
  });
});
