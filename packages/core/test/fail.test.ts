import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, type ClaimedJob } from '../src/index.ts';
import { openQueue } from './fixtures.ts';

describe('fail', () => {
  test('a failure with attempts left waits out its backoff in the delayed set', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { backoff: { type: 'fixed', delayMs: 60_000 } });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    expect(await queue.fail(job, new Error('smtp timeout'))).toBe('delayed');
    const hash = await redis.hgetall(`queue:{${queueName}}:job:${id}`);
    expect(hash).toMatchObject({ status: 'delayed', claim_token: '', claimed_at_ms: '0', last_error: 'smtp timeout' });
    const due = Number(await redis.zscore(`queue:{${queueName}}:delayed`, id));
    expect(due - Number(hash.last_error_at_ms)).toBe(60_000);
    expect(await redis.llen(`queue:{${queueName}}:pending`)).toBe(0);
    expect(await redis.llen(`queue:{${queueName}}:processing`)).toBe(0);
    expect(await queue.claim()).toEqual([]);
    expect((await queue.stats()).retriedTotal).toBe(1);
    await queue.close();
  });

  test('backoff delays a retry: the job is claimed again only after its delay', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { backoff: { type: 'fixed', delayMs: 250 } });
    await queue.enqueue('email', { recipient: 'a@example.com' });
    const [first] = (await queue.claim()) as [ClaimedJob];
    await queue.fail(first, 'transient');
    const [second] = (await queue.claim({ blockMs: 10_000 })) as [ClaimedJob];
    expect(second.id).toBe(first.id);
    expect(second.attempts).toBe(2);
    expect(second.claimedAtMs - (first.claimedAtMs)).toBeGreaterThanOrEqual(250);
    await queue.close();
  });

  test("a kind's own backoff wins over the queue's", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { backoff: { type: 'fixed', delayMs: 3_600_000 } });
    const id = await queue.enqueue('webhook', { url: 'https://example.com/hook' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.fail(job, 'HTTP 503');
    const due = Number(await redis.zscore(`queue:{${queueName}}:delayed`, id));
    const failedAt = Number(await redis.hget(`queue:{${queueName}}:job:${id}`, 'last_error_at_ms'));
    expect(due - failedAt).toBe(200);
    await queue.close();
  });

  test('a poison job lands in failed after maxAttempts, with its last error', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 0 } });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const outcomes = [];
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const [job] = (await queue.claim()) as [ClaimedJob];
      expect(job.attempts).toBe(attempt);
      outcomes.push(await queue.fail(job, new Error(`boom ${attempt}`)));
    }
    expect(outcomes).toEqual(['retried', 'retried', 'failed']);
    const record = await queue.getJob(id);
    expect(record?.status).toBe('failed');
    expect(record?.lastError).toBe('boom 3');
    expect(record?.attempts).toBe(3);
    expect(await redis.lrange(`queue:{${queueName}}:failed`, 0, -1)).toEqual([id]);
    const stats = await queue.stats();
    expect(stats).toMatchObject({ failedTotal: 1, retriedTotal: 2, pendingDepth: 0, processingDepth: 0, failedDepth: 1 });
    expect(await queue.claim()).toEqual([]);
    await queue.close();
  });

  test('a permanent failure goes to failed at once and keeps its hash for the failed TTL', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { failedTtlSeconds: 3_600 });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    expect(await queue.fail(job, new Error('no such user'), { permanent: true })).toBe('failed');
    expect(await redis.ttl(`queue:{${queueName}}:job:${id}`)).toBeGreaterThan(3_500);
    expect((await queue.list('failed')).map((j) => [j.id, j.lastError])).toEqual([[id, 'no such user']]);
    await queue.close();
  });

  test('a job enqueued with maxAttempts 1 is not retried', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { recipient: 'a@example.com' }, { maxAttempts: 1 });
    const [job] = (await queue.claim()) as [ClaimedJob];
    expect(await queue.fail(job, 'nope')).toBe('failed');
    await queue.close();
  });

  test('a kind with maxAttempts 5 gets five attempts', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { maxAttempts: 2 });
    await queue.enqueue('webhook', { url: 'https://example.com/' });
    let outcome = '';
    let attempts = 0;
    while (outcome !== 'failed') {
      const [job] = (await queue.claim()) as [ClaimedJob];
      attempts = job.attempts;
      outcome = await queue.fail(job, 'down', { retryDelayMs: 0 });
    }
    expect(attempts).toBe(5);
    await queue.close();
  });

  test('by default the failed list keeps every failed job, past the old cap of 10,000, with no expiry', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    expect(queue.options).toMatchObject({ failedHistory: Number.POSITIVE_INFINITY, failedTtlSeconds: 0 });
    const failed = `queue:{${queueName}}:failed`;
    // 10,000 earlier dead letters; the oldest (at the far end) with its hash.
    const earlier = Array.from({ length: 10_000 }, (_, n) => `earlier${n}`);
    for (let at = 0; at < earlier.length; at += 1_000) await redis.lpush(failed, ...earlier.slice(at, at + 1_000));
    await redis.hset(`queue:{${queueName}}:job:earlier0`, { id: 'earlier0', status: 'failed', last_error: 'the incident' });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    expect(await queue.fail(job, 'x', { permanent: true })).toBe('failed');
    expect(await redis.llen(failed)).toBe(10_001);
    expect(await redis.lindex(failed, -1)).toBe('earlier0');
    expect((await queue.getJob('earlier0'))?.lastError).toBe('the incident');
    expect(await redis.ttl(`queue:{${queueName}}:job:${id}`)).toBe(-1);
    expect((await queue.stats()).failedDroppedTotal).toBe(0);
    await queue.close();
  });

  test('an explicit failedHistory caps the failed list, and every failed job trimmed off is counted', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { failedHistory: 2 });
    const ids = [];
    for (let n = 0; n < 3; n += 1) ids.push(await queue.enqueue('email', { recipient: 'a@example.com', n }));
    for (const job of await queue.claim({ max: 3 })) await queue.fail(job, 'x', { permanent: true });
    expect(await redis.lrange(`queue:{${queueName}}:failed`, 0, -1)).toEqual([ids[2], ids[1]]);
    expect(await redis.exists(`queue:{${queueName}}:job:${ids[0]}`)).toBe(0);
    expect((await queue.stats()).failedDroppedTotal).toBe(1);
    // Dead-lettered by a sweep (a lease that ran out on the last attempt) counts the same way.
    const last = await queue.enqueue('email', { recipient: 'a@example.com' }, { maxAttempts: 1 });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await redis.zadd(`queue:{${queueName}}:leases`, 1, job.id);
    expect((await queue.reclaimStuck()).deadLettered).toEqual([last]);
    expect(await redis.lrange(`queue:{${queueName}}:failed`, 0, -1)).toEqual([last, ids[2]]);
    expect((await queue.stats()).failedDroppedTotal).toBe(2);
    await queue.close();
  });

  test('with an explicit failedTtlSeconds, each expired failed job is counted when its id leaves the failed list', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { failedTtlSeconds: 60 });
    const ids = [];
    for (let n = 0; n < 3; n += 1) ids.push(await queue.enqueue('email', { recipient: 'a@example.com', n }));
    for (const job of await queue.claim({ max: 3 })) await queue.fail(job, 'x', { permanent: true });
    expect(await redis.ttl(`queue:{${queueName}}:job:${ids[0]}`)).toBeGreaterThan(50);
    // Redis expires hashes with no script running: the same end state as deleting them.
    await redis.del(`queue:{${queueName}}:job:${ids[0]}`, `queue:{${queueName}}:job:${ids[2]}`);
    expect((await queue.stats()).failedDroppedTotal).toBe(0);
    expect(await queue.tidyHistory()).toEqual({ completed: 0, failed: 1 });
    expect((await queue.stats()).failedDroppedTotal).toBe(1);
    // The newest one, out of tidy's reach behind a live hash, is counted when a redrive finds it gone.
    expect(await queue.retry([ids[2] as string])).toEqual(['not_found']);
    expect(await redis.lrange(`queue:{${queueName}}:failed`, 0, -1)).toEqual([ids[1]]);
    expect((await queue.stats()).failedDroppedTotal).toBe(2);
    // Expired completed jobs are tidied without counting: dropping them is the policy.
    await redis.lpush(`queue:{${queueName}}:completed`, 'expired');
    expect(await queue.tidyHistory()).toEqual({ completed: 1, failed: 0 });
    expect((await queue.stats()).failedDroppedTotal).toBe(2);
    await queue.close();
  });

  test('a negative retry delay is refused and the job stays claimed', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    const error = await queue.fail(job, 'x', { retryDelayMs: -5 }).catch((e: unknown) => e);
    expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT')).toBe(true);
    expect((await queue.getJob(job.id))?.status).toBe('processing');
    await queue.close();
  });
});

describe('release', () => {
  test('a job whose attempts field was hand-written as a non-integer still goes back to pending', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await redis.hset(`queue:{${queueName}}:job:${id}`, 'attempts', '2.5');
    expect(await queue.release([job])).toEqual([true]);
    expect(await redis.lrange(`queue:{${queueName}}:pending`, 0, -1)).toEqual([id]);
    expect(await redis.llen(`queue:{${queueName}}:processing`)).toBe(0);
    expect(await redis.hget(`queue:{${queueName}}:job:${id}`, 'status')).toBe('pending');
    await queue.close();
  });

  test('hands claimed jobs back to the claim end at once, without counting the attempt, and fences the old claim', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ids = [];
    for (let n = 0; n < 3; n += 1) ids.push(await queue.enqueue('email', { recipient: 'a@example.com', n }));
    const [a, b] = (await queue.claim({ max: 2 })) as [ClaimedJob, ClaimedJob];
    expect(await queue.release([a, b])).toEqual([true, true]);
    expect(await redis.lrange(`queue:{${queueName}}:pending`, 0, -1)).toEqual([ids[2], ids[1], ids[0]]);
    expect(await redis.hgetall(`queue:{${queueName}}:job:${a.id}`)).toMatchObject({ status: 'pending', attempts: '0', claim_token: '' });
    expect(await redis.zcount(`queue:{${queueName}}:leases`, '-inf', '(+inf')).toBe(0);
    expect(await queue.release([a])).toEqual([false]);
    const error = await queue.complete(a, 'late').catch((e: unknown) => e);
    expect(isJobsError(error, 'JOBS_LOST_CLAIM')).toBe(true);
    const [again] = (await queue.claim()) as [ClaimedJob];
    expect(again.id).toBe(a.id);
    expect(again.attempts).toBe(1);
    expect((await queue.stats()).releasedTotal).toBe(2);
    await queue.close();
  });
});

describe('retry (redrive from the dead-letter list)', () => {
  test('puts failed jobs back on pending with fresh attempts, oldest first, and leaves others alone', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { failedTtlSeconds: 600 });
    const ids = [];
    for (let n = 0; n < 3; n += 1) ids.push(await queue.enqueue('email', { recipient: 'a@example.com', n }));
    for (const job of await queue.claim({ max: 3 })) await queue.fail(job, `boom ${job.id}`, { permanent: true });
    const pendingOne = await queue.enqueue('email', { recipient: 'b@example.com' });
    expect(await queue.retry([ids[1] as string, pendingOne, 'ffffffffffffffff'])).toEqual([true, 'pending', 'not_found']);
    const record = await queue.getJob(ids[1] as string);
    expect(record).toMatchObject({ status: 'pending', attempts: 0, lastError: `boom ${ids[1]}` });
    expect(await redis.ttl(`queue:{${queueName}}:job:${ids[1]}`)).toBe(-1);
    const { retried, more } = await queue.retryFailed({ batch: 1 });
    expect(retried).toEqual([ids[0]]);
    expect(more).toBe(true);
    expect(await queue.retryFailed()).toEqual({ retried: [ids[2]], more: false });
    expect(await queue.stats()).toMatchObject({ failedDepth: 0, pendingDepth: 4, redrivenTotal: 3 });
    const [again] = (await queue.claim()) as [ClaimedJob];
    expect(again.attempts).toBe(1);
    await queue.close();
  });

  test('tidyHistory drops expired ids from the far end; purge deletes every key of the queue and nothing else', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await redis.rpush(`queue:{${queueName}}:completed`, 'kept', 'gone1', 'gone2');
    await redis.hset(`queue:{${queueName}}:job:kept`, { id: 'kept', status: 'completed' });
    expect(await queue.tidyHistory()).toEqual({ completed: 2, failed: 0 });
    expect(await redis.lrange(`queue:{${queueName}}:completed`, 0, -1)).toEqual(['kept']);
    await queue.enqueue('email', { recipient: 'a@example.com' }, { idempotencyKey: 'k' });
    await redis.set('queue:{other}:pending-lookalike', 'x');
    expect(await queue.purge()).toBeGreaterThanOrEqual(4);
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
    expect(await redis.get('queue:{other}:pending-lookalike')).toBe('x');
    await redis.del('queue:{other}:pending-lookalike');
    await queue.close();
  });
});
