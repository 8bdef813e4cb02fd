import { openRedis, redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, type ClaimedJob } from '../src/index.ts';
import { openQueue } from './fixtures.ts';

describe('complete', () => {
  test('stores the result, clears the token, leaves processing and the lease index, and pushes to completed', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { completedTtlSeconds: 300 });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(job, { sentAt: '2026-11-30T00:00:00Z' });
    const hash = await redis.hgetall(`queue:{${queueName}}:job:${id}`);
    expect(hash).toMatchObject({ status: 'completed', claim_token: '', result: '{"sentAt":"2026-11-30T00:00:00Z"}' });
    expect(Number(hash.completed_at_ms)).toBeGreaterThan(0);
    expect(await redis.ttl(`queue:{${queueName}}:job:${id}`)).toBeGreaterThan(290);
    expect(await redis.llen(`queue:{${queueName}}:processing`)).toBe(0);
    expect(await redis.zcard(`queue:{${queueName}}:leases`)).toBe(0);
    expect(await redis.lrange(`queue:{${queueName}}:completed`, 0, -1)).toEqual([id]);
    const stats = await queue.stats();
    expect(stats.completedTotal).toBe(1);
    expect(stats.completedDepth).toBe(1);
    const record = await queue.getJob(id);
    expect(record?.result).toEqual({ sentAt: '2026-11-30T00:00:00Z' });
    await queue.close();
  });

  test('publishes the recipe event {"id","status":"completed"} on the events channel', async ({ redis, redisUrl, queueName }) => {
    // On a cluster, a subscriber on any node gets what a script on another node publishes.
    const subscriber = openRedis(redisUrl);
    const messages: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => messages.push(message));
    await subscriber.subscribe(`queue:{${queueName}}:events`);
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(job, null);
    await expect.poll(() => messages.length).toBe(1);
    expect(JSON.parse(messages[0] as string)).toEqual({ id, status: 'completed' });
    subscriber.disconnect();
    await queue.close();
  });

  test('a second complete with the same token does nothing and says the claim is lost', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(job, 1);
    const error = await queue.complete(job, 2).catch((e: unknown) => e);
    expect(isJobsError(error, 'JOBS_LOST_CLAIM')).toBe(true);
    expect(await redis.llen(`queue:{${queueName}}:completed`)).toBe(1);
    expect((await queue.stats()).completedTotal).toBe(1);
    expect((await queue.getJob(job.id))?.result).toBe(1);
    await queue.close();
  });

  test('a fail after complete does nothing: the job is not re-queued', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(job, 'done');
    const error = await queue.fail(job, new Error('late failure')).catch((e: unknown) => e);
    expect(isJobsError(error, 'JOBS_LOST_CLAIM')).toBe(true);
    const stats = await queue.stats();
    expect(stats.pendingDepth).toBe(0);
    expect(stats.delayedDepth).toBe(0);
    expect((await queue.getJob(job.id))?.status).toBe('completed');
    await queue.close();
  });

  test('an empty token completes nothing, even on a job nobody claimed', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const fake = { id, token: '' } as ClaimedJob;
    expect(await queue.completeMany([{ job: fake, result: 1 }])).toEqual([false]);
    expect((await queue.getJob(id))?.status).toBe('pending');
    await queue.close();
  });

  test('completeMany acknowledges several jobs in one call and reports each', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    for (let n = 0; n < 3; n += 1) await queue.enqueue('email', { recipient: 'a@example.com', n });
    const jobs = await queue.claim({ max: 3 });
    const stale = { ...(jobs[1] as ClaimedJob), token: 'ffffffffffffffff' };
    const done = await queue.completeMany([
      { job: jobs[0] as ClaimedJob, result: 'a' },
      { job: stale, result: 'b' },
      { job: jobs[2] as ClaimedJob, result: 'c' },
    ]);
    expect(done).toEqual([true, false, true]);
    expect((await queue.stats()).completedTotal).toBe(2);
    await queue.close();
  });

  test('completeAndClaim acknowledges one job and claims the next in one round trip', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ids = [];
    for (let n = 0; n < 3; n += 1) ids.push(await queue.enqueue('email', { recipient: 'a@example.com', n }));
    const [first] = (await queue.claim()) as [ClaimedJob];
    const { completed, next } = await queue.completeAndClaim(first, 'ok', { max: 2 });
    expect(completed).toBe(true);
    expect(next.map((j) => j.id)).toEqual(ids.slice(1));
    expect((await queue.stats()).processingDepth).toBe(2);
    await queue.close();
  });

  test('a result over the size limit is refused and the job stays claimed', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { maxResultBytes: 1_000 });
    await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    const error = await queue.complete(job, 'x'.repeat(2_000)).catch((e: unknown) => e);
    expect(isJobsError(error, 'JOBS_PAYLOAD_TOO_LARGE')).toBe(true);
    expect((await queue.getJob(job.id))?.status).toBe('processing');
    await queue.complete(job, 'small');
    await queue.close();
  });

  test('completes a job whose id sits deep in a long processing list, and only that id leaves it', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const processing = `queue:{${queueName}}:processing`;
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    await redis.rpush(processing, ...Array.from({ length: 3_000 }, (_, i) => `older-${i}`));
    const [job] = (await queue.claim()) as [ClaimedJob];
    await redis.lpush(processing, ...Array.from({ length: 3_000 }, (_, i) => `newer-${i}`));
    await queue.complete(job, 'found');
    expect(await redis.llen(processing)).toBe(6_000);
    expect(await redis.lpos(processing, id)).toBeNull();
    expect((await queue.getJob(id))?.status).toBe('completed');
    await queue.close();
  });

  test('history is capped and trimmed ids take their hashes with them', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { completedHistory: 3 });
    const ids = [];
    for (let n = 0; n < 5; n += 1) ids.push(await queue.enqueue('email', { recipient: 'a@example.com', n }));
    for (const job of await queue.claim({ max: 5 })) await queue.complete(job, job.id);
    expect(await redis.lrange(`queue:{${queueName}}:completed`, 0, -1)).toEqual(ids.slice(2).reverse());
    expect(await redis.exists(`queue:{${queueName}}:job:${ids[0]}`, `queue:{${queueName}}:job:${ids[1]}`)).toBe(0);
    expect((await queue.stats()).completedTotal).toBe(5);
    await queue.close();
  });

  test('a completed hash expires, and its id is no longer shown as a job', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { completedTtlSeconds: 1 });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(job, 'ok');
    expect((await queue.list('completed')).map((j) => j.id)).toEqual([id]);
    await expect.poll(() => redis.exists(`queue:{${queueName}}:job:${id}`), { timeout: 5_000, interval: 100 }).toBe(0);
    expect(await redis.lrange(`queue:{${queueName}}:completed`, 0, -1)).toEqual([id]);
    expect(await queue.list('completed')).toEqual([]);
    expect(await queue.getJob(id)).toBeNull();
    await queue.close();
  });

  test('a job that failed once and then succeeded no longer shows the old error', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const [first] = (await queue.claim()) as [ClaimedJob];
    expect(await queue.fail(first, new Error('smtp timeout'), { retryDelayMs: 0 })).toBe('retried');
    expect((await queue.getJob(id))?.lastError).toBe('smtp timeout');
    const [second] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(second, 'sent');
    const record = await queue.getJob(id);
    expect(record?.lastError).toBeUndefined();
    expect(record?.attempts).toBe(2);
    await queue.close();
  });
});
