import { openRedis, redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { parseControlOrder, sendHeartbeat, type WorkerHeartbeat } from '../src/internal.ts';
import { isJobsError, queueKeys } from '../src/index.ts';
import { openQueue } from './fixtures.ts';

/** A heartbeat of worker `id`, alive for a minute. */
function beat(id: string, more: Partial<WorkerHeartbeat> = {}): WorkerHeartbeat {
  return { id, host: 'box-1', pid: 4242, version: '1.2.3', kinds: ['email'], concurrency: 4, running: [], ttlMs: 60_000, ...more };
}

describe('orders to workers (quiet, resume, scale)', () => {
  test('quietWorkers tells every live worker, one message each, and stores the order where its next heartbeat reads it back', async ({ redis, redisUrl, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ctx = queue.partitions[0]!.ctx;
    const listener = openRedis(redisUrl);
    const heard: string[] = [];
    listener.on('message', (_channel: string, message: string) => heard.push(message));
    await listener.subscribe(queueKeys(queueName).control);
    const a = await sendHeartbeat(ctx, beat('w-a'));
    await sendHeartbeat(ctx, beat('w-b'));
    await sendHeartbeat(ctx, beat('w-dead', { ttlMs: 1 }));
    await waitFor(async () => (await queue.workers()).length === 2 || undefined, { what: 'the short-lived worker to drop out' });
    expect(await queue.quietWorkers()).toEqual({ told: ['w-a', 'w-b'] });
    await waitFor(() => (heard.length >= 2 ? true : undefined), { what: 'the two orders' });
    expect(heard.map((message) => parseControlOrder(message))).toEqual([
      { op: 'quiet', worker: 'w-a', seq: 1 },
      { op: 'quiet', worker: 'w-b', seq: 1 },
    ]);
    const back = await sendHeartbeat(ctx, beat('w-a', { startedAtMs: a.nowMs }));
    expect(back.quietOrder).toEqual({ seq: 1, value: 1 });
    expect(back.scaleOrder).toBeUndefined();
    // The dead worker's hash is gone: no order made one without a TTL.
    expect(await redis.exists(queueKeys(queueName).worker('w-dead'))).toBe(0);
    listener.disconnect();
    await queue.close();
  });

  test('a resume or scale of one worker by id reaches it alone, numbered after the earlier orders; an id not alive is told nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ctx = queue.partitions[0]!.ctx;
    const a = await sendHeartbeat(ctx, beat('w-a'));
    const b = await sendHeartbeat(ctx, beat('w-b'));
    await queue.quietWorkers();
    expect(await queue.resumeWorkers({ workerId: 'w-b' })).toEqual({ told: ['w-b'] });
    expect(await queue.scaleWorkers({ workerId: 'w-b', concurrency: 12 })).toEqual({ told: ['w-b'] });
    expect(await queue.scaleWorkers({ workerId: 'w-nobody', concurrency: 12 })).toEqual({ told: [] });
    const backA = await sendHeartbeat(ctx, beat('w-a', { startedAtMs: a.nowMs }));
    const backB = await sendHeartbeat(ctx, beat('w-b', { startedAtMs: b.nowMs }));
    expect([backA.quietOrder, backA.scaleOrder]).toEqual([{ seq: 1, value: 1 }, undefined]);
    expect([backB.quietOrder, backB.scaleOrder]).toEqual([{ seq: 2, value: 0 }, { seq: 3, value: 12 }]);
    await queue.close();
  });

  test('a worker started later is not told, and the first heartbeat of a worker clears orders left by an earlier one of its id', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ctx = queue.partitions[0]!.ctx;
    await sendHeartbeat(ctx, beat('w-a'));
    await queue.quietWorkers();
    // w-a restarts under the same id: its first heartbeat (no startedAtMs).
    const again = await sendHeartbeat(ctx, beat('w-a'));
    expect(again.quietOrder).toBeUndefined();
    const later = await sendHeartbeat(ctx, beat('w-later'));
    expect(later.quietOrder).toBeUndefined();
    const listed = await queue.workers();
    expect(listed.map((worker) => [worker.id, worker.quiet])).toEqual([['w-a', false], ['w-later', false]]);
    await queue.close();
  });

  test('workers() shows what each worker says of itself: quiet and its concurrency now', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await sendHeartbeat(queue.partitions[0]!.ctx, beat('w-a', { quiet: true, concurrency: 3 }));
    expect((await queue.workers()).map((worker) => ({ quiet: worker.quiet, concurrency: worker.concurrency }))).toEqual([{ quiet: true, concurrency: 3 }]);
    await queue.close();
  });

  test('a scale below a worker\'s largest batch is refused for all, writing nothing; so are bad numbers, ids and option keys', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ctx = queue.partitions[0]!.ctx;
    await sendHeartbeat(ctx, beat('w-a'));
    await sendHeartbeat(ctx, beat('w-batch', { batchMax: 10 }));
    const refused = await queue.scaleWorkers({ concurrency: 5 }).catch((error: unknown) => error);
    expect(isJobsError(refused, 'JOBS_INVALID_ARGUMENT') && refused.field).toBe('concurrency');
    expect((refused as Error).message).toContain('w-batch');
    for (const id of ['w-a', 'w-batch']) expect(await redis.hget(queueKeys(queueName).worker(id), 'order_seq')).toBeNull();
    for (const bad of [0, 10_001, 2.5, '4']) {
      const error = await queue.scaleWorkers({ concurrency: bad as number }).catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT') && error.field).toBe('concurrency');
    }
    const badId = await queue.quietWorkers({ workerId: 'has space' }).catch((e: unknown) => e);
    expect(isJobsError(badId, 'JOBS_INVALID_ARGUMENT') && badId.field).toBe('workerId');
    const badKey = await queue.quietWorkers({ worker: 'w-a' } as never).catch((e: unknown) => e);
    expect(isJobsError(badKey, 'JOBS_INVALID_ARGUMENT')).toBe(true);
    const noOptions = await queue.scaleWorkers(undefined as never).catch((e: unknown) => e);
    expect(isJobsError(noOptions, 'JOBS_INVALID_ARGUMENT')).toBe(true);
    expect(await redis.hget(queueKeys(queueName).worker('w-a'), 'order_seq')).toBeNull();
    // At the batch size it goes through.
    expect(await queue.scaleWorkers({ concurrency: 10 })).toEqual({ told: ['w-a', 'w-batch'] });
    await queue.close();
  });
});
