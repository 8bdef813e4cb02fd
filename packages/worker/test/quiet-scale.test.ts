import { isJobsError, Queue, queueKeys } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { openProxiedRedis, redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds } from '../src/index.ts';

const kinds = defineKinds({
  task: { schema: { type: 'object' } },
  bulk: { schema: { type: 'object' } },
});

describe('quiet, resume and scale a worker', () => {
  test('worker.quiet() resolves once it claims nothing more: a job enqueued then stays pending until resumeClaiming()', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const queue = new Queue({ redis, queue: queueName, kinds });
    const worker = createWorker({ redis, queue: queueName, kinds, heartbeatIntervalMs: 200, handlers: { task: () => 'done', bulk: () => 'done' } });
    await worker.ready();
    await worker.quiet();
    expect(worker.isQuiet).toBe(true);
    await waitFor(async () => (await queue.workers())[0]?.quiet || undefined, { what: 'quiet in the registry' });
    const id = await producer.enqueue('task', {});
    // The registry says quiet only with no claim in flight, and stats come from the same Redis.
    const before = await queue.stats();
    expect([before.pendingDepth, before.processingDepth]).toEqual([1, 0]);
    expect((await producer.getJob(id))?.status).toBe('pending');
    worker.resumeClaiming();
    await waitFor(async () => (await producer.getJob(id))?.status === 'completed' || undefined, { what: 'the job to run once resumed' });
    await waitFor(async () => (await queue.workers())[0]?.quiet === false || undefined, { what: 'claiming again in the registry' });
    await Promise.all([worker.close(), producer.close(), queue.close()]);
  });

  test('setConcurrency refuses what is not 1 to 10,000 or is below the largest batch size, changing nothing; the registry shows the new number', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const worker = createWorker({
      redis, queue: queueName, kinds, concurrency: 8, heartbeatIntervalMs: 200,
      handlers: { task: () => 1, bulk: { batch: { size: 4, maxWaitMs: 10 }, handler: (jobs) => jobs.map(() => 1) } },
    });
    await worker.ready();
    for (const bad of [0, 10_001, 1.5, Number.NaN, '3', 3]) {
      let error: unknown;
      try {
        worker.setConcurrency(bad as number);
      } catch (caught) {
        error = caught;
      }
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT') && error.field).toBe('concurrency');
      expect(worker.concurrency).toBe(8);
    }
    worker.setConcurrency(4);
    expect(worker.concurrency).toBe(4);
    await waitFor(async () => (await queue.workers())[0]?.concurrency === 4 || undefined, { what: 'the new concurrency in the registry' });
    // A scale order below the batch size is refused before anything is written.
    const refused = await queue.scaleWorkers({ concurrency: 2 }).catch((error: unknown) => error);
    expect(isJobsError(refused, 'JOBS_INVALID_ARGUMENT') && refused.field).toBe('concurrency');
    await Promise.all([worker.close(), queue.close()]);
  });

  test('an order whose message is lost is obeyed at the next heartbeat', async ({ redisUrl, redis, queueName }) => {
    const proxied = await openProxiedRedis(redisUrl, redis);
    const control = queueKeys(queueName).control;
    // The worker's SUBSCRIBE to the control channel never reaches Redis: no order's message can come.
    const held = proxied.proxy.holdBefore((command) => command[0] === 'SUBSCRIBE' && command.includes(control));
    const queue = new Queue({ redis, queue: queueName, kinds });
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = createWorker({ redis: proxied.redis, queue: queueName, kinds, concurrency: 2, heartbeatIntervalMs: 200, handlers: { task: () => 'done', bulk: () => 'done' } });
    worker.on('error', () => undefined);
    await held;
    await waitFor(async () => (await queue.workers()).length === 1 || undefined, { what: 'the worker in the registry' });
    expect(await queue.quietWorkers()).toEqual({ told: [worker.id] });
    expect(await queue.scaleWorkers({ concurrency: 5 })).toEqual({ told: [worker.id] });
    const [listed] = await waitFor(async () => {
      const workers = await queue.workers();
      return workers[0]?.quiet && workers[0].concurrency === 5 ? workers : undefined;
    }, { what: 'the orders obeyed at a heartbeat', timeoutMs: 10_000 });
    expect(listed).toMatchObject({ quiet: true, concurrency: 5 });
    expect([worker.isQuiet, worker.concurrency]).toEqual([true, 5]);
    const id = await producer.enqueue('task', {});
    expect((await producer.getJob(id))?.status).toBe('pending');
    // A later heartbeat reads the same orders back and obeys nothing twice: a local resume stands.
    worker.resumeClaiming();
    await waitFor(async () => (await producer.getJob(id))?.status === 'completed' || undefined, { what: 'the job once resumed' });
    const lastSeen = listed!.lastSeenMs;
    await waitFor(async () => ((await queue.workers())[0]?.lastSeenMs ?? 0) > lastSeen + 400 || undefined, { what: 'two more heartbeats' });
    expect(worker.isQuiet).toBe(false);
    proxied.proxy.closeHeld();
    await Promise.all([worker.close({ graceMs: 0 }), producer.close(), queue.close()]);
    proxied.redis.disconnect();
    await proxied.proxy.close();
  });

  test('a worker with heartbeats off is not in the registry and cannot be told', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const worker = createWorker({ redis, queue: queueName, kinds, heartbeatIntervalMs: 0, handlers: { task: () => 1, bulk: () => 1 } });
    await worker.ready();
    expect(await queue.quietWorkers()).toEqual({ told: [] });
    expect(worker.isQuiet).toBe(false);
    await Promise.all([worker.close(), queue.close()]);
  });

  test('a worker not run yet starts quiet when told so, and quiet, resume and scale after close change nothing', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = createWorker({ redis, queue: queueName, kinds, autorun: false, heartbeatIntervalMs: 200, handlers: { task: () => 1, bulk: () => 1 } });
    await worker.quiet();
    worker.setConcurrency(3);
    worker.run();
    await worker.ready();
    const id = await producer.enqueue('task', {});
    const queue = new Queue({ redis, queue: queueName, kinds });
    await waitFor(async () => (await queue.workers())[0]?.quiet || undefined, { what: 'quiet in the registry' });
    expect((await queue.workers())[0]?.concurrency).toBe(3);
    expect((await producer.getJob(id))?.status).toBe('pending');
    await worker.close();
    await worker.quiet();
    worker.resumeClaiming();
    worker.setConcurrency(2);
    expect((await producer.getJob(id))?.status).toBe('pending');
    await Promise.all([producer.close(), queue.close()]);
  });
});
