import { Queue } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor, within, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { DueNotices } from '../src/due-notices.ts';
import { SharedSubscriber } from '@jobs/core/internal';
import { kinds } from './kinds.ts';

/**
 * The due-job notices of one plain queue, for a worker whose room is `room`: `roomAsked` settles
 * when a notice's time has come and it asks, `promotions()` counts its promotion calls.
 */
async function listening(redis: TestRedis, queueName: string, room: boolean): Promise<{ queue: Queue<unknown>; notices: { close(): Promise<void> }; roomAsked: Promise<void>; promotions: () => number }> {
  const queue = new Queue({ redis, queue: queueName, kinds }) as Queue<unknown>;
  const subscriber = new SharedSubscriber(queue.client);
  let promotions = 0;
  const promoteDue = queue.promoteDue.bind(queue);
  queue.promoteDue = (batch?: number) => {
    promotions += 1;
    return promoteDue(batch);
  };
  let asked: () => void = () => undefined;
  const roomAsked = new Promise<void>((resolve) => {
    asked = resolve;
  });
  const notices = new DueNotices(
    subscriber,
    [queue],
    () => {
      asked();
      return room;
    },
    (error) => {
      throw error;
    },
  );
  await notices.ready;
  // Closing the notices closes the connection they listen on, as the worker does after them.
  const close = async (): Promise<void> => {
    await notices.close();
    await subscriber.close();
  };
  return { queue, notices: { close }, roomAsked, promotions: () => promotions };
}

describe('due-job notices', () => {
  test('a worker with no free slot leaves a job that comes due to its next claim', async ({ redis, queueName }) => {
    const { queue, notices, roomAsked, promotions } = await listening(redis, queueName, false);
    const producer = createProducer({ redis, queue: queueName, kinds });
    await producer.enqueue('email', { recipient: 'a@example.com' }, { delayMs: 30 });
    await within(roomAsked, 5_000, () => 'the notice never came due');
    // A promotion would have been sent in the same turn as the question.
    await Promise.resolve();
    expect(promotions()).toBe(0);
    // Due, and still waiting in the delayed set for a claim to promote it.
    expect(await queue.stats()).toMatchObject({ delayedDepth: 1, pendingDepth: 0 });
    await notices.close();
    await queue.close();
    await producer.close();
  });

  test('a worker with a free slot promotes the job when it comes due', async ({ redis, queueName }) => {
    const { queue, notices, roomAsked, promotions } = await listening(redis, queueName, true);
    const producer = createProducer({ redis, queue: queueName, kinds });
    await producer.enqueue('email', { recipient: 'a@example.com' }, { delayMs: 30 });
    await within(roomAsked, 5_000, () => 'the notice never came due');
    expect(promotions()).toBe(1);
    await waitFor(async () => (await queue.stats()).pendingDepth === 1, { timeoutMs: 5_000, what: 'the job promoted onto pending' });
    expect((await queue.stats()).delayedDepth).toBe(0);
    await notices.close();
    await queue.close();
    await producer.close();
  });
});
