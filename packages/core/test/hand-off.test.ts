import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { queueKeys, type ClaimedJob } from '../src/index.ts';
import { openQueue, soleOf } from './fixtures.ts';

const mail = { recipient: 'a@example.com' };

describe('handing back a job of an unknown kind', () => {
  test('waits a second for a live worker that knows the kind, without spending an attempt; a resend changes nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { eventLog: true });
    const k = queueKeys(queueName);
    const id = await queue.enqueue('email', mail);
    const [job] = (await queue.claim()) as [ClaimedJob];
    expect(await soleOf(queue).handOff(job, 'email', 60_000, 2, ['webhook'])).toEqual({ outcome: 'delayed', delayMs: 1_000, liveWorkers: 2 });
    const record = await queue.getJob(id);
    expect([record?.status, record?.attempts, record?.fields.unhandled_since_ms]).toEqual(['delayed', 0, undefined]);
    expect(Number(await redis.zscore(k.delayed, id))).toBe(record?.runAtMs);
    expect(await redis.llen(k.processing)).toBe(0);
    expect(await soleOf(queue).handOff(job, 'email', 60_000, 2, ['webhook'])).toEqual({ outcome: 'repeated' });
    const stats = await queue.stats();
    expect([stats.handedOffTotal, stats.failedTotal]).toEqual([1, 0]);
    expect((await queue.timeline(id))?.events.map((event) => event.event)).toEqual(['enqueued', 'claimed', 'handed-off']);
    await queue.close();
  });

  test('with no live worker for the kind it waits up to the grace, then fails with JOBS_UNKNOWN_KIND', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail);
    const [first] = (await queue.claim()) as [ClaimedJob];
    const handed = await soleOf(queue).handOff(first, 'email', 60_000, 0, ['webhook']);
    expect(handed).toEqual({ outcome: 'delayed', delayMs: 10_000, liveWorkers: 0 });
    const since = Number((await queue.getJob(id))?.fields.unhandled_since_ms);
    expect(since).toBeGreaterThan(0);
    // Its grace already over by the next claim (graceMs 0): it fails, naming the kinds the worker knows.
    await queue.promote(id);
    const [second] = (await queue.claim()) as [ClaimedJob];
    expect(await soleOf(queue).handOff(second, 'email', 0, 0, ['webhook'])).toEqual({ outcome: 'failed' });
    const failed = await queue.getJob(id);
    expect(failed?.status).toBe('failed');
    expect(failed?.lastError).toMatch(/^JOBS_UNKNOWN_KIND: no live worker has handled kind "email" for \d+ ms .*this worker knows webhook/);
    expect(failed?.error?.code).toBe('JOBS_UNKNOWN_KIND');
    await queue.close();
  });

  test('a live worker for the kind clears the wait that had begun', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail);
    const [first] = (await queue.claim()) as [ClaimedJob];
    await soleOf(queue).handOff(first, 'email', 60_000, 0, []);
    await queue.promote(id);
    const [second] = (await queue.claim()) as [ClaimedJob];
    expect(await soleOf(queue).handOff(second, 'email', 60_000, 1, [])).toMatchObject({ outcome: 'delayed', delayMs: 1_000 });
    expect((await queue.getJob(id))?.fields.unhandled_since_ms).toBeUndefined();
    await queue.close();
  });

  test('a cancelled or lost claim hands back nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail);
    const [job] = (await queue.claim()) as [ClaimedJob];
    expect(await soleOf(queue).handOff({ ...job, token: 'someone-else' }, 'email', 1_000, 0, [])).toEqual({ outcome: 'lost' });
    await queue.cancel(id);
    expect(await soleOf(queue).handOff(job, 'email', 1_000, 0, [])).toEqual({ outcome: 'cancelled' });
    expect((await queue.stats()).handedOffTotal).toBe(0);
    await queue.close();
  });
});
