import { createProducer, partitionOfKey } from '@jobs/producer';
import { channelSubscribers, redisTest as test, subscribingConnections, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, type PayloadTypesOf, type Worker } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

type Payloads = PayloadTypesOf<typeof kinds>;

describe('a worker on a partitioned queue', () => {
  test('serves every partition: 2,000 jobs over 4 partitions, each completed exactly once', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds, partitions: 4 });
    const runs = new Map<string, number>();
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      partitions: 4,
      concurrency: 16,
      handlers: {
        ...okHandlers,
        email: (payload, { id }) => {
          runs.set(id, (runs.get(id) ?? 0) + 1);
          return { sentTo: payload.recipient };
        },
      },
    });
    // A key per job spreads them over all four partitions (round robin would fill one or two).
    const ids = (await producer.enqueueMany(Array.from({ length: 2_000 }, (_, n) => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', n }, options: { partitionKey: `order-${n}` } })))).map((r) => r.id);
    for (let p = 0; p < 4; p += 1) expect(ids.filter((id) => id.endsWith(`.p${p}`)).length).toBeGreaterThan(300);
    await waitFor(async () => (await producer.stats()).completedTotal === 2_000, { timeoutMs: 30_000, what: '2,000 completions' });
    expect(runs.size).toBe(2_000);
    expect([...runs.values()].every((times) => times === 1)).toBe(true);
    expect(await producer.waitForResult(ids[7] as string)).toEqual({ sentTo: 'a@example.com' });
    expect(await worker.stats()).toMatchObject({ pendingDepth: 0, processingDepth: 0, completedTotal: 2_000 });
    await worker.close();
    await producer.close();
  });

  test('a deep backlog in one partition does not starve the others', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds, partitions: 4 });
    await producer.enqueueMany(Array.from({ length: 3_000 }, (_, n) => ({ kind: 'email' as const, payload: { recipient: 'hot@example.com', n }, options: { partitionKey: 'hot' } })));
    let started = 0;
    const worker: Worker<Payloads> = createWorker({
      redis,
      queue: queueName,
      kinds,
      partitions: 4,
      concurrency: 4,
      handlers: {
        ...okHandlers,
        email: async ({ recipient }) => {
          started += 1;
          await new Promise((resolve) => setTimeout(resolve, 2));
          return { sentTo: recipient };
        },
      },
    });
    await waitFor(() => started >= 50, { what: 'the hot partition being worked' });
    expect(partitionOfKey('cold-7', 4)).not.toBe(partitionOfKey('hot', 4));
    const cold = await Promise.all([1, 2, 3].map((n) => producer.enqueue('webhook', { url: `https://example.com/${n}` }, { partitionKey: 'cold-7' })));
    for (const id of cold) expect(await producer.waitForResult(id, { timeoutMs: 5_000 })).toMatchObject({ posted: expect.any(String) });
    // The cold jobs finished while most of the hot backlog was still waiting.
    expect((await producer.stats()).pendingDepth).toBeGreaterThan(1_000);
    await worker.close({ graceMs: 0 });
    await producer.close();
  });

  test('a partition whose claims fail (its Redis away) does not stop the worker serving the others', async ({ redis, queueName }) => {
    // Concurrency 1, two partitions; every claim on partition 1 fails (another type at its
    // pending key stands in for a master that is failing over). Job A of partition 0 runs past
    // its partition's turn, so its completion hands the slot to a claim on partition 1, whose
    // turn it now is; that claim fails and backs off. The slot must come back to the worker,
    // or job B, waiting in partition 0, would never run.
    const onP0 = ['a', 'b', 'c', 'd', 'e', 'f'].find((key) => partitionOfKey(key, 2) === 0) as string;
    await redis.set(`queue:{${queueName}:p1}:pending`, 'not a list');
    const producer = createProducer({ redis, queue: queueName, kinds, partitions: 2 });
    let startedA = false;
    const errors: unknown[] = [];
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      partitions: 2,
      concurrency: 1,
      handlers: {
        ...okHandlers,
        email: async ({ recipient, n }) => {
          if (n === 1) {
            startedA = true;
            // Longer than a partition's turn (250 ms).
            await new Promise((resolve) => setTimeout(resolve, 400));
          }
          return { sentTo: recipient };
        },
      },
    });
    worker.on('error', (error) => errors.push(error));
    const a = await producer.enqueue('email', { recipient: 'a@example.com', n: 1 }, { partitionKey: onP0 });
    await waitFor(() => startedA, { what: 'job A running' });
    const b = await producer.enqueue('email', { recipient: 'b@example.com', n: 2 }, { partitionKey: onP0 });
    expect(await producer.waitForResult(a, { timeoutMs: 5_000 })).toEqual({ sentTo: 'a@example.com' });
    expect(await producer.waitForResult(b, { timeoutMs: 5_000 })).toEqual({ sentTo: 'b@example.com' });
    // The failing partition was reported, not hidden.
    expect(errors.length).toBeGreaterThan(0);
    await worker.close();
    await producer.close();
  });

  test('delayed jobs of every partition come due', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds, partitions: 3 });
    const worker = createWorker({ redis, queue: queueName, kinds, partitions: 3, handlers: okHandlers });
    const ids = await Promise.all([0, 1, 2].map((n) => producer.enqueue('email', { recipient: 'later@example.com', n }, { delayMs: 300 })));
    for (const id of ids) expect(await producer.waitForResult(id, { timeoutMs: 10_000 })).toEqual({ sentTo: 'later@example.com' });
    await worker.close();
    await producer.close();
  });

  test('one pub/sub connection serves the delayed-job notices, schedule wakes and control orders of every partition', async ({ redis, redisUrl, queueName }) => {
    // From a URL, so that the worker's connections carry its connection name.
    const name = `pubsub-${queueName}`;
    const worker = createWorker({ redis: redisUrl, queue: queueName, kinds, handlers: okHandlers, partitions: 3, connectionName: name });
    await worker.ready();
    // Three wake, three schedule-wake and three control channels, one connection.
    const subscribed = (): Promise<number[]> => subscribingConnections(redis, name);
    await waitFor(async () => (await subscribed()).reduce((a, b) => a + b, 0) === 9, { what: 'nine channels subscribed' });
    expect(await subscribed()).toEqual([9]);
    await worker.close();
  });

  test('a worker keeps schedules going over that connection: an upsert wakes it, and each tick becomes a job it runs', async ({ redis, queueName }) => {
    const ran: string[] = [];
    const worker = createWorker({ redis, queue: queueName, kinds, partitions: 3, handlers: { ...okHandlers, email: async (_payload, ctx) => void ran.push(ctx.id) } });
    await worker.ready();
    const producer = createProducer({ redis, queue: queueName, kinds, partitions: 3 });
    // Schedules live in partition 0, whose schedule runner listens on the shared connection.
    await waitFor(async () => (await channelSubscribers(redis, [`queue:{${queueName}:p0}:schedules-wake`]))[0] === 1, { what: 'the schedule runner listening' });
    await producer.schedules.upsert({ id: 'tick', kind: 'email', payload: { recipient: 'a@example.com' }, every: 1_000 });
    await waitFor(() => ran.filter((id) => id.startsWith('sched:tick:')).length >= 2, { what: 'two ticks run', timeoutMs: 15_000 });
    await producer.schedules.remove('tick');
    await worker.close();
    await producer.close();
  });

  test('a worker given another partition count than Redis recorded says so and claims nothing', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds, partitions: 4 });
    await producer.enqueue('email', { recipient: 'a@example.com' });
    const errors: unknown[] = [];
    const worker = createWorker({ redis, queue: queueName, kinds, partitions: 2, handlers: okHandlers });
    worker.on('error', (error) => errors.push(error));
    await waitFor(() => errors.length > 0, { what: 'the mismatch reported' });
    expect(errors[0]).toMatchObject({ code: 'JOBS_INVALID_ARGUMENT', field: 'partitions' });
    expect(await producer.stats()).toMatchObject({ pendingDepth: 1, processingDepth: 0 });
    await worker.close();
    await producer.close();
  });
  test('an idle worker woken again and again on one partition does not pile up listeners on its stop signal', async ({ redis, queueName }) => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      if (warning.name === 'MaxListenersExceededWarning') warnings.push(warning);
    };
    process.on('warning', onWarning);
    const producer = createProducer({ redis, queue: queueName, kinds, partitions: 3 });
    let done = 0;
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      partitions: 3,
      concurrency: 4,
      handlers: {
        ...okHandlers,
        email: ({ recipient }) => {
          done += 1;
          return { sentTo: recipient };
        },
      },
    });
    await worker.ready();
    // One job at a time, each to the same partition once the worker is idle again: every job
    // wakes the wait on all partitions, and the other partitions' waits go on.
    for (let n = 1; n <= 25; n += 1) {
      await producer.enqueue('email', { recipient: 'a@example.com', n }, { partitionKey: 'one' });
      await waitFor(() => done === n, { what: `job ${n} done` });
    }
    await worker.close();
    await producer.close();
    // Node reports a warning on the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    expect(warnings.map((warning) => warning.message)).toEqual([]);
  });
});
