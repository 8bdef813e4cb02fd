import { Queue } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { queueKeysIn, redisTest as test, waitFor, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds, PermanentError } from '../src/index.ts';
import { startChildWorker } from './child-worker.ts';

const kinds = defineKinds({
  quick: { schema: { type: 'object' } },
  flaky: { schema: { type: 'object' }, maxAttempts: 3, backoff: { type: 'fixed', delayMs: 1 } },
  doomed: { schema: { type: 'object' } },
  slow: { schema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
});

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

describe('metrics history from workers', () => {
  test('a worker counts completed, retried and failed attempts per kind, with their run times, and the enqueue scripts count enqueues', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds, metricsHistory: true });
    const queue = new Queue({ redis, queue: queueName, kinds });
    let flakyRuns = 0;
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      metricsHistory: true,
      heartbeatIntervalMs: 200,
      handlers: {
        quick: () => 'ok',
        flaky: () => {
          flakyRuns += 1;
          if (flakyRuns === 1) throw new Error('first attempt fails');
          return 'ok';
        },
        doomed: () => {
          throw new PermanentError('never');
        },
        slow: () => 'ok',
      },
    });
    const ids = [await producer.enqueue('quick', {}), await producer.enqueue('quick', {}), await producer.enqueue('flaky', {})];
    const doomed = await producer.enqueue('doomed', {});
    await Promise.all(ids.map((id) => producer.waitForResult(id)));
    await waitFor(async () => (await queue.getJob(doomed))?.status === 'failed', { what: 'the doomed job dead-lettered' });
    // Sent by the flushes at the heartbeat's cadence, while the worker runs.
    const all = await waitFor(async () => {
      const read = await queue.history();
      return sum(read.completed) === 3 && sum(read.failed) === 1 && sum(read.retried) === 1 ? read : undefined;
    }, { what: 'the worker\'s counts in the history' });
    expect(sum(all.enqueued)).toBe(4);
    expect(all.kinds).toEqual(['doomed', 'flaky', 'quick']);
    const quick = await queue.history({ kind: 'quick' });
    expect([sum(quick.enqueued), sum(quick.completed), sum(quick.failed), sum(quick.retried)]).toEqual([2, 2, 0, 0]);
    const flaky = await queue.history({ kind: 'flaky' });
    expect([sum(flaky.enqueued), sum(flaky.completed), sum(flaky.retried)]).toEqual([1, 1, 1]);
    // Run times were counted: a step with attempts has percentiles, the others none.
    expect(quick.runMsP50.some((p) => p !== null && p >= 0)).toBe(true);
    expect(quick.runMsP50.filter((p, i) => p !== null && quick.completed[i] === 0)).toEqual([]);
    await within(worker.close(), 15_000, () => 'worker close');
    await Promise.all([queue.close(), producer.close()]);
  });

  test('counts survive the worker: a killed worker process keeps what it flushed, the next one adds to it, and closing flushes the rest', async ({ redis, redisUrl, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds, metricsHistory: true });
    const queue = new Queue({ redis, queue: queueName, kinds });
    const env = { REDIS_URL: redisUrl, QUEUE: queueName, METRICS_HISTORY: '1', HEARTBEAT_MS: '200', GRACE_MS: '5000' };
    const first = await startChildWorker(env);
    const firstIds = await Promise.all([1, 2, 3].map(() => producer.enqueue('slow', { ms: 0 })));
    await Promise.all(firstIds.map((id) => producer.waitForResult(id)));
    await waitFor(async () => sum((await queue.history()).completed) === 3 || undefined, { what: 'the first worker\'s flush' });
    first.process.kill('SIGKILL');
    await within(first.exited, 15_000, () => 'the killed worker exits');

    const second = await startChildWorker({ ...env, HEARTBEAT_MS: '60000' });
    const secondIds = await Promise.all([1, 2].map(() => producer.enqueue('slow', { ms: 0 })));
    await Promise.all(secondIds.map((id) => producer.waitForResult(id)));
    // Its interval is a minute: these two reach Redis with the flush of its close.
    second.process.kill('SIGTERM');
    await within(second.exited, 15_000, () => 'the closed worker exits');
    const read = await queue.history({ kind: 'slow' });
    expect([sum(read.enqueued), sum(read.completed)]).toEqual([5, 5]);
    await Promise.all([queue.close(), producer.close()]);
  });

  test('a partitioned queue\'s worker adds each job\'s counts to the partition it came from, and the read sums them', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds, partitions: 2, metricsHistory: true });
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 2 });
    const worker = createWorker({ redis, queue: queueName, kinds, partitions: 2, metricsHistory: true, handlers: { quick: () => 1, flaky: () => 1, doomed: () => 1, slow: () => 1 } });
    const ids = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((key) => producer.enqueue('quick', {}, { partitionKey: key })));
    await Promise.all(ids.map((id) => producer.waitForResult(id)));
    await within(worker.close(), 15_000, () => 'worker close');
    const read = await queue.history({ kind: 'quick' });
    expect([sum(read.enqueued), sum(read.completed)]).toEqual([6, 6]);
    // Each partition's history holds its own jobs, enqueued and completed alike.
    for (const partition of queue.partitions) {
      const own = ids.filter((id) => queue.partitionOf(id) === partition).length;
      const alone = new Queue({ redis, queue: partition.name, kinds });
      const mine = await alone.history({ kind: 'quick' });
      await alone.close();
      expect(own).toBeGreaterThan(0);
      expect([sum(mine.enqueued), sum(mine.completed)], partition.name).toEqual([own, own]);
    }
    await Promise.all([queue.close(), producer.close()]);
  });

  test('off (the default), a worker and a producer write no key of the history', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = createWorker({ redis, queue: queueName, kinds, heartbeatIntervalMs: 200, handlers: { quick: () => 1, flaky: () => 1, doomed: () => 1, slow: () => 1 } });
    expect(await producer.waitForResult(await producer.enqueue('quick', {}))).toBe(1);
    await within(worker.close(), 15_000, () => 'worker close');
    expect((await queueKeysIn(redis, queueName)).filter((key) => key.includes(':metrics'))).toEqual([]);
    await producer.close();
  });
});
