import { createProducer, type LogEvent } from '@jobs/producer';
import { redisTest as test, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

describe('a worker and the event log', () => {
  test("a worker names itself, and the log records its claims and completions under that id, as the producer's follower sees", async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds, eventLog: true });
    const follower = await producer.events();
    const worker = createWorker({ redis, queue: queueName, kinds, handlers: okHandlers, eventLog: true });
    expect(worker.id).toMatch(/^.+:\d+:[0-9a-f]{4}$/);
    const named = createWorker({ redis, queue: queueName, kinds, handlers: okHandlers, eventLog: true, workerId: 'mailer-1' });
    expect(named.id).toBe('mailer-1');
    await named.close();
    const id = await producer.enqueue('email', { recipient: 'a@example.com' });
    const seen: LogEvent[] = [];
    for await (const item of follower) {
      if (item.type === 'event') seen.push(item);
      if (item.type === 'event' && item.event === 'completed') break;
    }
    expect(seen.map((e) => [e.jobId, e.event, e.attempt, e.worker])).toEqual([
      [id, 'enqueued', 0, null],
      [id, 'claimed', 1, worker.id],
      [id, 'completed', 1, worker.id],
    ]);
    expect((await within(producer.timeline(id), 8_000, () => 'the timeline'))?.events.map((e) => e.event)).toEqual(['enqueued', 'claimed', 'completed']);
    await worker.close();
    await producer.close();
  });
});
