import { openRedis, redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, type ClaimedJob } from '../src/index.ts';
import { openQueue } from './fixtures.ts';

/** Enqueues `count` jobs and claims them all. */
async function enqueueAndClaim(queue: ReturnType<typeof openQueue>, count: number): Promise<ClaimedJob[]> {
  for (let n = 0; n < count; n += 1) await queue.enqueue('email', { recipient: 'a@example.com', n });
  return queue.claim({ max: count });
}

describe('complete', () => {
  test("clears an earlier attempt's error that a recipe client left without a trail, and reports no lease once done", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    // A recipe client's retrying fail: last_error and its time, no trail field.
    await redis.hset(`queue:{${queueName}}:job:${id}`, { last_error: 'smtp timeout', last_error_at_ms: '1715441000456' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    expect(job.lastError).toBe('smtp timeout');
    await queue.complete(job, null);
    const hash = await redis.hgetall(`queue:{${queueName}}:job:${id}`);
    expect(hash.status).toBe('completed');
    expect(hash).not.toHaveProperty('last_error');
    expect(hash).not.toHaveProperty('last_error_at_ms');
    const record = await queue.getJob(id);
    expect(record?.lastError).toBeUndefined();
    expect(record?.leaseExpiresAtMs).toBeUndefined();
    await queue.close();
  });

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
    expect(await redis.zcount(`queue:{${queueName}}:leases`, '-inf', '(+inf')).toBe(0);
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

  test('completeManyAndClaim completes a batch and claims the next jobs in one atomic call, fenced per job', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ids = await Promise.all([1, 2, 3, 4, 5].map((n) => queue.enqueue('email', { recipient: `${n}@example.com` })));
    const first = await queue.claim({ max: 2 });
    const stale = { ...first[1], token: 'not-the-token' } as ClaimedJob;
    const { outcomes, next } = await queue.completeManyAndClaim(
      [
        { job: first[0] as ClaimedJob, result: 'ok' },
        { job: stale, result: 'stolen' },
        { job: first[1] as ClaimedJob, result: 10n },
      ],
      { max: 3 },
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['completed', 'lost', 'refused']);
    expect(next.map((job) => job.id)).toEqual(ids.slice(2));
    expect(new Set(next.map((job) => job.token)).size).toBe(3);
    for (const job of next) expect(job.token).toMatch(/^[0-9a-f]{16}$/);
    // The refused and the stale entries changed nothing: job 2 is still claimed, by its token.
    expect(await redis.hget(`queue:{${queueName}}:job:${ids[1]}`, 'status')).toBe('processing');
    expect(await redis.lrange(`queue:{${queueName}}:processing`, 0, -1)).toEqual([...ids.slice(2)].reverse().concat(ids[1] as string));
    expect(await redis.zcount(`queue:{${queueName}}:leases`, '-inf', '(+inf')).toBe(4);
    expect((await queue.stats()).completedTotal).toBe(1);
    // max 0 only completes.
    const done = await queue.completeManyAndClaim(next.map((job) => ({ job, result: null })), { max: 0 });
    expect(done).toEqual({ outcomes: [{ status: 'completed' }, { status: 'completed' }, { status: 'completed' }], next: [] });
    await queue.close();
  });

  test('with max 0 a batch only completes: work in pending stays there, and a stale claim is reported lost', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const [a, b] = await Promise.all([1, 2].map((n) => queue.enqueue('email', { recipient: `${n}@example.com` })));
    const [job] = (await queue.claim()) as [ClaimedJob];
    expect(job.id).toBe(a);
    const stale = { ...job, token: '0123456789abcdef' } as ClaimedJob;
    expect(await queue.completeManyAndClaim([{ job: stale, result: 'stolen' }], { max: 0 })).toEqual({ outcomes: [{ status: 'lost' }], next: [] });
    expect(await redis.hget(`queue:{${queueName}}:job:${a}`, 'status')).toBe('processing');
    expect(await queue.completeManyAndClaim([{ job, result: 'ok' }], { max: 0 })).toEqual({ outcomes: [{ status: 'completed' }], next: [] });
    expect(await queue.getJob(a as string)).toMatchObject({ status: 'completed', result: 'ok' });
    expect(await redis.lrange(`queue:{${queueName}}:pending`, 0, -1)).toEqual([b]);
    expect(await queue.stats()).toMatchObject({ completedTotal: 1, processingDepth: 0, pendingDepth: 1 });
    await queue.close();
  });

  test('a pattern subscriber gets completion events too', async ({ redis, redisUrl, queueName }) => {
    const subscriber = openRedis(redisUrl);
    const messages: string[] = [];
    subscriber.on('pmessage', (_pattern: string, _channel: string, message: string) => messages.push(message));
    await subscriber.psubscribe(`queue:{${queueName}}:*`);
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(job, null);
    await expect.poll(() => messages.map((message) => JSON.parse(message) as unknown)).toContainEqual({ id, status: 'completed' });
    subscriber.disconnect();
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

  test('a batch of completions takes one occurrence of each id out of processing and keeps the rest in order', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const processing = `queue:{${queueName}}:processing`;
    const jobs = await enqueueAndClaim(queue, 8);
    // A recipe client's double push left one id in processing twice.
    const twice = (jobs[3] as ClaimedJob).id;
    await redis.rpush(processing, twice);
    const before = await redis.lrange(processing, 0, -1);
    const finishing = [0, 2, 3, 5, 6].map((n) => jobs[n] as ClaimedJob);
    const stale = { ...(jobs[7] as ClaimedJob), token: 'ffffffffffffffff' };
    const done = await queue.completeMany([...finishing.map((job) => ({ job, result: job.id })), { job: stale, result: 'no' }]);
    expect(done).toEqual([true, true, true, true, true, false]);
    // The occurrence nearest the tail goes, as LREM -1 would take it: the hand-pushed one.
    const expected = [...before];
    for (const job of finishing) expected.splice(expected.lastIndexOf(job.id), 1);
    expect(await redis.lrange(processing, 0, -1)).toEqual(expected);
    expect(expected.filter((id) => id === twice)).toHaveLength(1);
    expect((await queue.stats()).completedTotal).toBe(5);
    await queue.close();
  });

  test('a batch of the oldest claims, in any order, leaves processing as the newest ones in order', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const processing = `queue:{${queueName}}:processing`;
    const jobs = await enqueueAndClaim(queue, 10);
    const before = await redis.lrange(processing, 0, -1);
    // The four claimed first sit at the tail; they come back shuffled, with a stale claim on a newer job.
    const oldest = [2, 0, 3, 1].map((n) => jobs[n] as ClaimedJob);
    const stale = { ...(jobs[8] as ClaimedJob), token: 'ffffffffffffffff' };
    expect(await queue.completeMany([...oldest.map((job) => ({ job, result: null })), { job: stale, result: 'no' }])).toEqual([true, true, true, true, false]);
    expect(await redis.lrange(processing, 0, -1)).toEqual(before.slice(0, 6));
    // Now the tail holds a job not in the batch (7): only the batch's ids leave, the rest keep their order.
    const mixed = [4, 9, 5, 6].map((n) => jobs[n] as ClaimedJob);
    expect(await queue.completeMany(mixed.map((job) => ({ job, result: null })))).toEqual([true, true, true, true]);
    expect(await redis.lrange(processing, 0, -1)).toEqual([8, 7].map((n) => (jobs[n] as ClaimedJob).id));
    expect((await queue.stats()).completedTotal).toBe(8);
    await queue.close();
  });

  test('a batch whose jobs are not all in processing completes only those that are', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const processing = `queue:{${queueName}}:processing`;
    const jobs = await enqueueAndClaim(queue, 6);
    // A recipe client took two ids off processing; their hashes still name the claims.
    for (const n of [0, 3]) await redis.lrem(processing, 0, (jobs[n] as ClaimedJob).id);
    const outcomes = await queue.completeSettled(jobs.map((job) => ({ job, result: null })));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['lost', 'completed', 'completed', 'lost', 'completed', 'completed']);
    expect(await redis.llen(processing)).toBe(0);
    expect((await queue.stats()).completedTotal).toBe(4);
    await queue.close();
  });

  test('a batch of completions on a long processing list removes just those ids, one by one', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const processing = `queue:{${queueName}}:processing`;
    const jobs = await enqueueAndClaim(queue, 6);
    // Too long next to the batch to be read whole: each id leaves with its own LREM.
    await redis.rpush(processing, ...Array.from({ length: 2_000 }, (_, i) => `other-${i}`));
    const before = await redis.lrange(processing, 0, -1);
    const done = await queue.completeMany(jobs.slice(0, 5).map((job) => ({ job, result: null })));
    expect(done).toEqual([true, true, true, true, true]);
    const finished = new Set(jobs.slice(0, 5).map((job) => job.id));
    expect(await redis.lrange(processing, 0, -1)).toEqual(before.filter((id) => !finished.has(id)));
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

  test('with no history kept, a completed job leaves no hash and no id behind, yet is counted and announced', async ({ redis, redisUrl, queueName }) => {
    const subscriber = openRedis(redisUrl);
    const messages: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => messages.push(message));
    await subscriber.subscribe(`queue:{${queueName}}:events`);
    const queue = openQueue(redis, queueName, { completedHistory: 0 });
    const ids = [];
    for (let n = 0; n < 6; n += 1) ids.push(await queue.enqueue('email', { recipient: 'a@example.com', n }));
    const jobs = await queue.claim({ max: 6 });
    // One alone, then a batch (the batch path removes the ids from processing in one go).
    await queue.complete(jobs[0] as ClaimedJob, 'ok');
    expect(await queue.completeMany(jobs.slice(1).map((job) => ({ job, result: job.id })))).toEqual([true, true, true, true, true]);
    expect(await redis.exists(...ids.map((id) => `queue:{${queueName}}:job:${id}`))).toBe(0);
    expect(await redis.llen(`queue:{${queueName}}:completed`)).toBe(0);
    expect(await redis.llen(`queue:{${queueName}}:processing`)).toBe(0);
    expect(await redis.zcount(`queue:{${queueName}}:leases`, '-inf', '(+inf')).toBe(0);
    expect((await queue.stats()).completedTotal).toBe(6);
    await expect.poll(() => messages.length, { timeout: 5_000 }).toBe(6);
    expect(messages.map((message) => JSON.parse(message) as unknown)).toEqual(ids.map((id) => ({ id, status: 'completed' })));
    // A second complete of a deleted job changes nothing and says the claim is gone.
    await expect(queue.complete(jobs[0] as ClaimedJob, 'again')).rejects.toSatisfy((error) => isJobsError(error, 'JOBS_LOST_CLAIM'));
    expect((await queue.stats()).completedTotal).toBe(6);
    await subscriber.quit();
    await queue.close();
  });

  test('history left from an earlier cap is trimmed when the cap drops to 0', async ({ redis, queueName }) => {
    const keeping = openQueue(redis, queueName, { completedHistory: 10 });
    const kept = [];
    for (let n = 0; n < 2; n += 1) kept.push(await keeping.enqueue('email', { recipient: 'a@example.com', n }));
    for (const job of await keeping.claim({ max: 2 })) await keeping.complete(job, 'ok');
    await keeping.close();
    const queue = openQueue(redis, queueName, { completedHistory: 0 });
    const id = await queue.enqueue('email', { recipient: 'a@example.com', n: 2 });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(job, 'ok');
    expect(await redis.llen(`queue:{${queueName}}:completed`)).toBe(0);
    expect(await redis.exists(...[...kept, id].map((each) => `queue:{${queueName}}:job:${each}`))).toBe(0);
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
