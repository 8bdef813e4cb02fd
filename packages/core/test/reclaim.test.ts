import { openRedis, redisTest as test, waitFor, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, type ClaimedJob } from '../src/index.ts';
import { openQueue } from './fixtures.ts';

/** Waits until the lease of every given job has passed on the Redis clock. */
async function leasesExpired(redis: TestRedis, jobs: readonly ClaimedJob[]): Promise<void> {
  const latest = Math.max(...jobs.map((j) => j.leaseExpiresAtMs));
  await waitFor(async () => {
    const [seconds, micros] = await redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) > latest;
  }, { what: 'lease expiry' });
}

describe('reclaimStuck', () => {
  test('a job whose lease expired goes back to pending, to the claim end, and runs again', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 100 });
    const ids = [];
    for (let n = 0; n < 3; n += 1) ids.push(await queue.enqueue('email', { recipient: 'a@example.com', n }));
    const [crashed] = (await queue.claim()) as [ClaimedJob];
    expect((await queue.reclaimStuck()).reclaimed).toEqual([]);
    await leasesExpired(redis, [crashed]);
    const result = await queue.reclaimStuck();
    expect(result).toEqual({ reclaimed: [crashed.id], deadLettered: [], dropped: [], more: false });
    const hash = await redis.hgetall(`queue:{${queueName}}:job:${crashed.id}`);
    expect(hash).toMatchObject({ status: 'pending', claim_token: '', claimed_at_ms: '0', attempts: '1' });
    expect(Number(hash.reclaimed_at_ms)).toBeGreaterThan(0);
    expect(await redis.zscore(`queue:{${queueName}}:leases`, crashed.id)).toBeNull();
    // It kept its place: the next claim takes it before the two that queued behind it.
    const [again] = (await queue.claim()) as [ClaimedJob];
    expect(again.id).toBe(crashed.id);
    expect(again.attempts).toBe(2);
    expect((await queue.stats()).reclaimedTotal).toBe(1);
    await queue.close();
  });

  test('token fencing: a worker whose job was reclaimed can neither complete nor fail it', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 50 });
    await queue.enqueue('email', { recipient: 'a@example.com' });
    const [slow] = (await queue.claim()) as [ClaimedJob];
    await leasesExpired(redis, [slow]);
    await queue.reclaimStuck();
    const [fresh] = (await queue.claim()) as [ClaimedJob];
    expect(fresh.id).toBe(slow.id);
    for (const attempt of [() => queue.complete(slow, 'late'), () => queue.fail(slow, 'late'), () => queue.extendLease(slow, 1_000)]) {
      const error = await attempt().catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_LOST_CLAIM')).toBe(true);
    }
    expect((await queue.getJob(fresh.id))?.status).toBe('processing');
    await queue.complete(fresh, 'on time');
    expect((await queue.getJob(fresh.id))?.result).toBe('on time');
    await queue.close();
  });

  test('a job that kills its worker every time lands in failed after maxAttempts', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 30, maxAttempts: 3 });
    const id = await queue.enqueue('email', { recipient: 'poison@example.com' });
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const [job] = (await queue.claim()) as [ClaimedJob];
      expect(job.attempts).toBe(attempt);
      await leasesExpired(redis, [job]);
      const result = await queue.reclaimStuck();
      expect(attempt < 3 ? result.reclaimed : result.deadLettered).toEqual([id]);
    }
    const record = await queue.getJob(id);
    expect(record?.status).toBe('failed');
    expect(record?.lastError).toMatch(/lease expired on attempt 3 of 3/);
    expect(await redis.lrange(`queue:{${queueName}}:failed`, 0, -1)).toEqual([id]);
    expect(await queue.claim()).toEqual([]);
    await queue.close();
  });

  test('an extended lease is not reclaimed', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 100 });
    await queue.enqueue('email', { recipient: 'a@example.com' });
    await queue.enqueue('email', { recipient: 'b@example.com' });
    const [kept, dropped] = (await queue.claim({ max: 2 })) as [ClaimedJob, ClaimedJob];
    const [deadline] = await queue.extendLeases([kept], 60_000);
    expect(deadline).toBeGreaterThan(kept.leaseExpiresAtMs);
    expect(Number(await redis.zscore(`queue:{${queueName}}:leases`, kept.id))).toBe(deadline);
    await leasesExpired(redis, [dropped]);
    expect((await queue.reclaimStuck()).reclaimed).toEqual([dropped.id]);
    await queue.complete(kept, 'ok');
    await queue.close();
  });

  test('does bounded work per call and reports when more are due', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 20 });
    await queue.enqueueMany(Array.from({ length: 25 }, (_, n) => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', n } })));
    const jobs = await queue.claim({ max: 25 });
    await leasesExpired(redis, jobs);
    const first = await queue.reclaimStuck({ batch: 10 });
    expect(first.reclaimed).toHaveLength(10);
    expect(first.more).toBe(true);
    const second = await queue.reclaimStuck({ batch: 10 });
    const third = await queue.reclaimStuck({ batch: 10 });
    expect(third.more).toBe(false);
    const all = [...first.reclaimed, ...second.reclaimed, ...third.reclaimed];
    expect(new Set(all).size).toBe(25);
    expect(await redis.llen(`queue:{${queueName}}:pending`)).toBe(25);
    await queue.close();
  });

  test('four reclaimers at once reclaim each expired job exactly once', async ({ redisUrl, redis, queueName }) => {
    const setup = openQueue(redis, queueName, { visibilityMs: 20 });
    await setup.enqueueMany(Array.from({ length: 2_000 }, (_, n) => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', n } })));
    const jobs = await setup.claim({ max: 1_000 });
    jobs.push(...(await setup.claim({ max: 1_000 })));
    await leasesExpired(redis, jobs);
    const connections = Array.from({ length: 4 }, () => openRedis(redisUrl));
    const sweepers = connections.map((c) => openQueue(c, queueName, { visibilityMs: 20 }));
    const reclaimed = await Promise.all(
      sweepers.map(async (sweeper) => {
        const mine: string[] = [];
        for (;;) {
          const result = await sweeper.reclaimStuck({ batch: 50 });
          mine.push(...result.reclaimed);
          if (!result.more) return mine;
        }
      }),
    );
    const all = reclaimed.flat();
    expect(all).toHaveLength(2_000);
    expect(new Set(all).size).toBe(2_000);
    expect((await setup.stats()).reclaimedTotal).toBe(2_000);
    await Promise.all(sweepers.map((s) => s.close()));
    for (const c of connections) c.disconnect();
    await setup.close();
  });

  test('an id in processing whose hash is gone is dropped, not stuck forever', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 20 });
    await redis.lpush(`queue:{${queueName}}:processing`, 'vanished');
    const result = await queue.reclaimStuck();
    expect(result.dropped).toEqual(['vanished']);
    expect(await redis.llen(`queue:{${queueName}}:processing`)).toBe(0);
    await queue.close();
  });
});
