import { createProducer } from '@jobs/producer';
import { channelSubscribers, redisTest as test } from '@jobs/testing';
import { describe, expect, test as plainTest } from 'vitest';
import { createWorker, isJobsError } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

describe('worker.ready()', () => {
  test('resolves once the worker listens for due delayed jobs; a job enqueued then is done', async ({ redis, queueName }) => {
    const worker = createWorker({ redis, queue: queueName, kinds, handlers: okHandlers, reclaimIntervalMs: 0 });
    await worker.ready();
    // No polling: the subscription was confirmed before ready() resolved.
    expect(await channelSubscribers(redis, [`queue:{${queueName}}:wake`])).toEqual([1]);
    // Again, later: the same answer at once.
    await worker.ready();
    const producer = createProducer({ redis, queue: queueName, kinds });
    const completed = new Promise((resolve) => worker.once('completed', resolve));
    await producer.enqueue('email', { recipient: 'a@example.com' });
    await completed;
    await worker.close();
    await producer.close();
  });

  test('a partitioned worker is ready once it listens on every partition', async ({ redis, queueName }) => {
    const worker = createWorker({ redis, queue: queueName, kinds, partitions: 3, handlers: okHandlers, reclaimIntervalMs: 0 });
    await worker.ready();
    const channels = [0, 1, 2].map((index) => `queue:{${queueName}:p${index}}:wake`);
    expect(await channelSubscribers(redis, channels)).toEqual([1, 1, 1]);
    await worker.close();
  });

  plainTest('rejects with JOBS_CLOSED when the worker is closed before it could reach Redis', async () => {
    // Nothing listens on port 1: the worker keeps trying to connect until it is closed.
    const worker = createWorker({ redis: 'redis://127.0.0.1:1', queue: 'never-ready', kinds, handlers: okHandlers, reclaimIntervalMs: 0 });
    worker.on('error', () => undefined);
    const ready = worker.ready().then(
      () => 'ready',
      (reason: unknown) => reason,
    );
    await worker.close({ graceMs: 0 });
    const error = await ready;
    expect(isJobsError(error, 'JOBS_CLOSED')).toBe(true);
    // Asked only after the close: the same answer.
    await expect(worker.ready()).rejects.toMatchObject({ code: 'JOBS_CLOSED' });
  });
});
