import { Queue } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

describe('prioritized jobs in a worker', () => {
  test('after a prioritized job fails and is retried at once, the worker claims the next waiting job without idling through a blocking wait', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const ids: string[] = [];
    for (let n = 0; n < 20; n += 1) ids.push(await producer.enqueue('webhook', { url: 'https://example.com/hook', n }, { priority: 1 }));
    const failing = new Set([ids[3], ids[9], ids[14], ids[17]]);
    const failedOnce = new Set<string>();
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      concurrency: 1,
      eventLog: true,
      handlers: {
        ...okHandlers,
        webhook: ({ url }, { id }) => {
          if (failing.has(id) && !failedOnce.has(id)) {
            failedOnce.add(id);
            throw new Error('once');
          }
          return { posted: url };
        },
      },
    });
    const queue = new Queue({ redis, queue: queueName, kinds, eventLog: true });
    await waitFor(async () => (await queue.stats()).completedTotal === 20, { what: 'all 20 jobs completed', timeoutMs: 60_000 });
    await within(worker.close(), 10_000, () => 'worker close');
    // Redis times, from the event log's entry ids: from each retry to the next claim. A claim
    // that blocked on the empty pending list (the jobs wait on their priority's list) would wait
    // out its 1 s block first.
    const entries = (await redis.xrange(queue.keys.log, '-', '+')).map(([entryId, fields]) => ({
      atMs: Number(entryId.split('-')[0]),
      event: fields[fields.indexOf('event') + 1],
    }));
    const retries = entries.filter((entry) => entry.event === 'retried');
    expect(retries).toHaveLength(4);
    const gaps = retries.map((retry) => (entries.find((entry) => entry.event === 'claimed' && entry.atMs >= retry.atMs)?.atMs ?? Number.POSITIVE_INFINITY) - retry.atMs);
    expect(Math.max(...gaps)).toBeLessThan(700);
    await queue.close();
    await producer.close();
  });
});
