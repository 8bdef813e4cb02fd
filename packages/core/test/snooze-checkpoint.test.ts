import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, queueKeys, type ClaimedJob } from '../src/index.ts';
import { openQueue, soleOf } from './fixtures.ts';

const mail = { recipient: 'a@example.com' };

describe('snooze', () => {
  test('puts a running job back to wait without spending its attempt, counted and logged, and a resend changes nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { eventLog: true });
    const k = queueKeys(queueName);
    const id = await queue.enqueue('email', mail);
    const [job] = (await queue.claim()) as [ClaimedJob];
    await soleOf(queue).snooze(job, 60_000);
    const record = await queue.getJob(id);
    expect(record?.status).toBe('delayed');
    expect(record?.attempts).toBe(0);
    // Due delayMs after the snooze, on the Redis clock.
    expect(Number(await redis.zscore(k.delayed, id)) - Number(record?.fields.snoozed_at_ms)).toBe(60_000);
    expect(await redis.llen(k.processing)).toBe(0);
    expect(await redis.zscore(k.leases, id)).toBeNull();
    expect((await queue.stats()).snoozedTotal).toBe(1);
    expect((await queue.attempts(id))?.entries.map((attempt) => attempt.outcome)).toEqual(['snoozed']);
    expect((await queue.timeline(id))?.events.map((event) => event.event)).toEqual(['enqueued', 'claimed', 'snoozed']);
    // The reply lost, the call resent: it answers as the first did, and nothing moves twice.
    await soleOf(queue).snooze(job, 60_000);
    expect((await queue.stats()).snoozedTotal).toBe(1);
    expect(await redis.zcard(k.delayed)).toBe(1);
    // The snoozed claim can record nothing.
    expect(await queue.completeSettled([{ job, result: 1 }])).toEqual([{ status: 'lost' }]);
    await queue.close();
  });

  test('a job snoozed for 0 ms runs again as the same attempt', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail, { maxAttempts: 1 });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await soleOf(queue).snooze(job, 0);
    await queue.promoteDue();
    const [again] = (await queue.claim()) as [ClaimedJob];
    expect(again.id).toBe(id);
    expect(again.attempts).toBe(1);
    await queue.complete(again, 'done');
    expect((await queue.getJob(id))?.status).toBe('completed');
    await queue.close();
  });

  test('gives back its running slot: the next job of a capped kind starts', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ kinds: { email: { concurrency: 1 } } });
    await queue.enqueue('email', mail);
    const second = await queue.enqueue('email', mail);
    const [job] = (await queue.claim({ max: 2 })) as [ClaimedJob];
    await soleOf(queue).snooze(job, 60_000);
    const [next] = (await queue.claim()) as [ClaimedJob];
    expect(next.id).toBe(second);
    await queue.close();
  });

  test('refuses a bad delay, a lost claim and a cancelled job, writing nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail);
    const [job] = (await queue.claim()) as [ClaimedJob];
    for (const delayMs of [-1, 1.5, 31 * 86_400_000, Number.NaN]) {
      const error = await soleOf(queue).snooze(job, delayMs).catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT') && error.field).toBe('delayMs');
    }
    expect((await queue.getJob(id))?.status).toBe('processing');
    const stranger = { ...job, token: 'not-the-token' };
    expect(isJobsError(await soleOf(queue).snooze(stranger, 10).catch((e: unknown) => e), 'JOBS_LOST_CLAIM')).toBe(true);
    await queue.cancel(id);
    expect(isJobsError(await soleOf(queue).snooze(job, 10).catch((e: unknown) => e), 'JOBS_CANCELLED')).toBe(true);
    expect((await queue.stats()).snoozedTotal).toBe(0);
    await queue.close();
  });
});

describe('checkpoints', () => {
  test('a checkpoint stored by one attempt is read by the next, after a failure and after a release', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail);
    expect(await soleOf(queue).checkpointed(id)).toBeUndefined();
    const [first] = (await queue.claim()) as [ClaimedJob];
    await soleOf(queue).checkpoint(first, { page: 3, cursor: 'abc' });
    await queue.fail(first, new Error('network'), { retryDelayMs: 0 });
    const [second] = (await queue.claim()) as [ClaimedJob];
    expect(await soleOf(queue).checkpointed(second.id)).toEqual({ page: 3, cursor: 'abc' });
    await soleOf(queue).checkpoint(second, { page: 7 });
    await queue.release([second]);
    const [third] = (await queue.claim()) as [ClaimedJob];
    expect(await soleOf(queue).checkpointed(third.id)).toEqual({ page: 7 });
    expect((await queue.getJob(id))?.checkpoint).toEqual({ page: 7 });
    await queue.close();
  });

  test('only the live claim may store one, and a bad value writes nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 1 });
    const id = await queue.enqueue('email', mail);
    const [job] = (await queue.claim()) as [ClaimedJob];
    const tooBig = await soleOf(queue).checkpoint(job, { blob: 'x'.repeat(70_000) }).catch((e: unknown) => e);
    expect(isJobsError(tooBig, 'JOBS_PAYLOAD_TOO_LARGE')).toBe(true);
    const notJson = await soleOf(queue).checkpoint(job, { at: new Date() }).catch((e: unknown) => e);
    expect(isJobsError(notJson, 'JOBS_NOT_SERIALIZABLE')).toBe(true);
    expect(await soleOf(queue).checkpointed(id)).toBeUndefined();
    // Its 1 ms lease lapses and the sweep reclaims it: the old claim can store nothing.
    await redis.zadd(queueKeys(queueName).leases, 0, id);
    await queue.reclaimStuck();
    const late = await soleOf(queue).checkpoint(job, { page: 1 }).catch((e: unknown) => e);
    expect(isJobsError(late, 'JOBS_LOST_CLAIM')).toBe(true);
    expect(await soleOf(queue).checkpointed(id)).toBeUndefined();
    await queue.close();
  });
});
