import { openRedis, redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import type { ClaimedJob } from '../src/index.ts';
import { openQueue } from './fixtures.ts';
import { RecipeClient } from './recipe-client.ts';

describe('interoperability with recipe clients on the same keys', () => {
  test('a job enqueued by a recipe client is claimed, routed by its payload kind, and completed by us', async ({ redis, queueName }) => {
    const recipe = new RecipeClient(redis, queueName);
    const queue = openQueue(redis, queueName);
    const id = await recipe.enqueue({ kind: 'email', recipient: 'alice@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    expect(job.id).toBe(id);
    expect(job.kind).toBe('email');
    expect(queue.kinds.decode(job.rawPayload, job.fields.kind)).toEqual({ ok: true, kind: 'email', payload: { recipient: 'alice@example.com' } });
    await queue.complete(job, { sent_at: '2026-11-30T00:00:00Z' });
    // What a recipe client reads back: the recipe's fields, with its values.
    const hash = await redis.hgetall(`queue:{${queueName}}:job:${id}`);
    expect(hash).toMatchObject({ id, status: 'completed', attempts: '1', result: '{"sent_at":"2026-11-30T00:00:00Z"}' });
    expect(await redis.lrange(`queue:{${queueName}}:completed`, 0, -1)).toEqual([id]);
    expect(await redis.llen(`queue:{${queueName}}:processing`)).toBe(0);
    await queue.close();
  });

  test('a recipe payload that fails its schema is reported as such, with the kind it claims', async ({ redis, queueName }) => {
    const recipe = new RecipeClient(redis, queueName);
    const queue = openQueue(redis, queueName);
    await recipe.enqueue({ kind: 'email', recipient: 'not an address' });
    await recipe.enqueue({ kind: 'sms', to: '+1555' });
    const [bad, unknown] = (await queue.claim({ max: 2 })) as [ClaimedJob, ClaimedJob];
    const badDecoded = queue.kinds.decode(bad.rawPayload);
    expect(badDecoded.ok).toBe(false);
    expect(badDecoded.ok === false && badDecoded.reason).toMatch(/recipient/);
    const unknownDecoded = queue.kinds.decode(unknown.rawPayload);
    expect(unknownDecoded).toMatchObject({ ok: false, kind: 'sms' });
    await queue.close();
  });

  test('a job enqueued by us is claimed and completed by a recipe client, and we see it completed', async ({ redis, queueName }) => {
    const recipe = new RecipeClient(redis, queueName);
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'bob@example.com' });
    const job = await recipe.claim();
    expect(job?.id).toBe(id);
    expect(job?.payload).toEqual({ kind: 'email', recipient: 'bob@example.com' });
    expect(job?.attempts).toBe(1);
    expect(await recipe.complete(job as { id: string; token: string }, { ok: true })).toBe(1);
    const record = await queue.getJob(id);
    expect(record?.status).toBe('completed');
    expect(record?.result).toEqual({ ok: true });
    expect((await queue.list('completed')).map((j) => j.id)).toEqual([id]);
    // The recipe's complete leaves its lease-less claim no trace in our lease index to trip over.
    expect((await queue.reclaimStuck()).reclaimed).toEqual([]);
    await queue.close();
  });

  test('a recipe client rejects a stale token from our claim: fencing holds across clients', async ({ redis, queueName }) => {
    const recipe = new RecipeClient(redis, queueName);
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { recipient: 'carol@example.com' });
    const [ours] = (await queue.claim()) as [ClaimedJob];
    expect(await recipe.complete({ id: ours.id, token: 'deadbeefdeadbeef' }, 'forged')).toBe(0);
    await queue.complete(ours, 'real');
    expect((await queue.getJob(ours.id))?.result).toBe('real');
    await queue.close();
  });

  test('a recipe worker that crashed after its stamp has its job reclaimed after the visibility timeout', async ({ redis, queueName }) => {
    const recipe = new RecipeClient(redis, queueName);
    const queue = openQueue(redis, queueName, { visibilityMs: 150 });
    const id = await queue.enqueue('email', { recipient: 'dave@example.com' });
    const crashed = await recipe.claim();
    expect(crashed?.id).toBe(id);
    // First sweep adopts the lease-less claim with claimed_at_ms + visibility.
    expect((await queue.reclaimStuck()).reclaimed).toEqual([]);
    const deadline = Number(await redis.zscore(`queue:{${queueName}}:leases`, id));
    const claimedAt = Number(await redis.hget(`queue:{${queueName}}:job:${id}`, 'claimed_at_ms'));
    expect(deadline - claimedAt).toBe(150);
    const result = await waitFor(async () => {
      const sweep = await queue.reclaimStuck();
      return sweep.reclaimed.length > 0 ? sweep : undefined;
    }, { what: 'the recipe claim to be reclaimed' });
    expect(result.reclaimed).toEqual([id]);
    // The crashed recipe worker's token no longer completes it.
    expect(await recipe.complete(crashed as { id: string; token: string }, 'late')).toBe(0);
    const [again] = (await queue.claim()) as [ClaimedJob];
    expect(again.id).toBe(id);
    expect(again.attempts).toBe(2);
    await queue.close();
  });

  test('a recipe claim between its move and its stamp is not reclaimed early: the fallback counts from when the sweep saw it, not from enqueued_at_ms', async ({ redis, queueName }) => {
    const recipe = new RecipeClient(redis, queueName);
    const queue = openQueue(redis, queueName, { visibilityMs: 200 });
    const id = await recipe.enqueue({ kind: 'email', recipient: 'erin@example.com' });
    // The job waited long in pending (an old enqueued_at_ms): the recipe's 2x fallback would
    // reclaim it the moment it is moved, while its claimer may still be stamping it.
    await redis.hset(`queue:{${queueName}}:job:${id}`, 'enqueued_at_ms', String(Date.now() - 3_600_000));
    expect(await recipe.move()).toBe(id);
    expect((await queue.reclaimStuck()).reclaimed).toEqual([]);
    expect(await redis.lrange(`queue:{${queueName}}:processing`, 0, -1)).toEqual([id]);
    // The late stamp lands, and the job is still where the claimer thinks it is.
    const stamped = await recipe.stamp(id);
    expect(await recipe.complete(stamped, 'done')).toBe(1);
    expect((await queue.getJob(id))?.status).toBe('completed');

    // One that never gets its stamp (the claimer died) is reclaimed a visibility after it was seen.
    const orphan = await recipe.enqueue({ kind: 'email', recipient: 'frank@example.com' });
    expect(await recipe.move()).toBe(orphan);
    // On the Redis clock, before the sweep that first sees it.
    const [seconds, micros] = await redis.time();
    const seenAt = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    expect((await queue.reclaimStuck()).reclaimed).toEqual([]);
    const sweep = await waitFor(async () => {
      const result = await queue.reclaimStuck();
      return result.reclaimed.length > 0 ? result : undefined;
    }, { what: 'the unstamped claim to be reclaimed' });
    expect(sweep.reclaimed).toEqual([orphan]);
    expect(((await queue.getJob(orphan))?.reclaimedAtMs ?? 0) - seenAt).toBeGreaterThanOrEqual(190);
    await queue.close();
  });

  test('a recipe reclaimer sweeping beside us never takes a long job whose lease we renew: it completes on its first attempt', async ({ redis, queueName }) => {
    const recipe = new RecipeClient(redis, queueName);
    const visibilityMs = 1_000;
    const queue = openQueue(redis, queueName, { visibilityMs });
    const id = await queue.enqueue('email', { recipient: 'gina@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    // The job runs for several visibilities; our side renews its lease as a worker does (every
    // fifth of the visibility), while a recipe port's reclaimStuck sweeps with the same visibility.
    const renewals: (number | null)[] = [];
    const reclaimedByRecipe: string[] = [];
    const errors: unknown[] = [];
    const renewing = setInterval(() => {
      queue.extendLeases([job], visibilityMs).then(([deadline]) => renewals.push(deadline ?? null), (error: unknown) => errors.push(error));
    }, visibilityMs / 5);
    const sweeping = setInterval(() => {
      recipe.reclaimStuck(visibilityMs).then((ids) => reclaimedByRecipe.push(...ids), (error: unknown) => errors.push(error));
    }, visibilityMs / 10);
    try {
      await waitFor(() => renewals.length >= 12 || reclaimedByRecipe.length > 0 || errors.length > 0, { what: 'a dozen lease renewals', timeoutMs: 30_000 });
    } finally {
      clearInterval(renewing);
      clearInterval(sweeping);
    }
    expect(errors).toEqual([]);
    expect(reclaimedByRecipe).toEqual([]);
    expect(renewals.every((deadline) => deadline !== null)).toBe(true);
    await queue.complete(job, 'done');
    const record = await queue.getJob(id);
    expect(record).toMatchObject({ status: 'completed', attempts: 1, reclaimedAtMs: undefined, claimedAtMs: job.claimedAtMs });
    // The record keeps the claim time; the hash's claimed_at_ms is the last renewal's.
    expect(record?.leaseRenewedAtMs).toBeGreaterThanOrEqual(job.claimedAtMs + visibilityMs);
    expect(record?.fields.first_claimed_at_ms).toBe(String(job.claimedAtMs));
    await queue.close();
  });

  test('each attempt keeps its own claim time across renewals, after our retry and after a recipe reclaim', async ({ redis, queueName }) => {
    const recipe = new RecipeClient(redis, queueName);
    const queue = openQueue(redis, queueName, { backoff: { type: 'fixed', delayMs: 0 } });
    const id = await queue.enqueue('email', { recipient: 'hal@example.com' });
    const key = `queue:{${queueName}}:job:${id}`;
    const renewedAttempt = async (): Promise<ClaimedJob> => {
      const [job] = (await queue.claim()) as [ClaimedJob];
      const [deadline] = await queue.extendLeases([job], 30_000);
      expect(Number(await redis.hget(key, 'claimed_at_ms'))).toBe((deadline as number) - 30_000);
      expect(await redis.hget(key, 'first_claimed_at_ms')).toBe(String(job.claimedAtMs));
      expect((await queue.getJob(id))?.claimedAtMs).toBe(job.claimedAtMs);
      return job;
    };
    const first = await renewedAttempt();
    expect(await queue.fail(first, 'flaky')).toBe('retried');
    expect(await redis.hexists(key, 'first_claimed_at_ms')).toBe(0);
    await renewedAttempt();
    // A recipe reclaimer (visibility -1: everything is stale to it) leaves our field behind.
    expect(await recipe.reclaimStuck(-1)).toEqual([id]);
    expect((await queue.getJob(id))?.claimedAtMs).toBeUndefined();
    const third = await renewedAttempt();
    expect(third.attempts).toBe(3);
    await queue.close();
  });

  test("a recipe reclaim in the same millisecond as the attempt's claim still leaves the next attempt its own claim time", async ({ redis, queueName }) => {
    const recipe = new RecipeClient(redis, queueName);
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'hal@example.com' });
    const key = `queue:{${queueName}}:job:${id}`;
    const [first] = (await queue.claim()) as [ClaimedJob];
    await queue.extendLeases([first], 30_000);
    expect(await recipe.reclaimStuck(-1)).toEqual([id]);
    // The recipe's reclaim stamped in the very millisecond of that claim (its clock is the caller's).
    await redis.hset(key, 'reclaimed_at_ms', String(first.claimedAtMs));
    const redisMs = async (): Promise<number> => {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
    };
    await waitFor(async () => (await redisMs()) > first.claimedAtMs, { what: 'the next millisecond on the Redis clock' });
    const [second] = (await queue.claim()) as [ClaimedJob];
    expect(second.claimedAtMs).toBeGreaterThan(first.claimedAtMs);
    await queue.extendLeases([second], 30_000);
    expect(await redis.hget(key, 'first_claimed_at_ms')).toBe(String(second.claimedAtMs));
    expect((await queue.getJob(id))?.claimedAtMs).toBe(second.claimedAtMs);
    await queue.close();
  });

  test('our events are the recipe event messages', async ({ redis, redisUrl, queueName }) => {
    const subscriber = openRedis(redisUrl);
    const messages: unknown[] = [];
    subscriber.on('message', (_c: string, m: string) => messages.push(JSON.parse(m)));
    await subscriber.subscribe(`queue:{${queueName}}:events`);
    const queue = openQueue(redis, queueName, { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 0 } });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const [job] = (await queue.claim()) as [ClaimedJob];
      await queue.fail(job, 'x');
    }
    await expect.poll(() => messages.length).toBe(2);
    expect(messages).toEqual([{ id, status: 'retry' }, { id, status: 'failed' }]);
    subscriber.disconnect();
    await queue.close();
  });
});
