import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError } from '../src/index.ts';
import { openQueue, reason } from './fixtures.ts';

const mail = (n: number) => ({ recipient: 'a@example.com', n });
const hook = (n: number) => ({ url: `https://example.com/${n}` });

describe('the queue-wide concurrency cap', () => {
  test('at most n jobs of any kind run at once; complete, fail and release each free a slot', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ concurrency: 2 });
    expect(await queue.limits()).toMatchObject({ concurrency: 2 });
    expect((await queue.stats()).limits).toMatchObject({ concurrency: 2 });
    await queue.enqueueMany(Array.from({ length: 3 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    await queue.enqueueMany(Array.from({ length: 3 }, (_, n) => ({ kind: 'webhook' as const, payload: hook(n) })));
    const first = await queue.claim({ max: 10 });
    expect(first).toHaveLength(2);
    expect(await queue.claim({ max: 10 })).toHaveLength(0);
    expect(await redis.zcard(queue.keys.queueRunning)).toBe(2);
    // Nothing was parked: the jobs wait in their list, in order.
    expect((await queue.stats()).parkedDepth).toBe(0);
    await queue.complete(first[0]!, null);
    const second = await queue.claim({ max: 10 });
    expect(second).toHaveLength(1);
    await queue.fail(second[0]!, new Error('x'), { permanent: true });
    await queue.release([first[1]!]);
    expect(await redis.zcard(queue.keys.queueRunning)).toBe(0);
    // The released job goes first again.
    const third = await queue.claim({ max: 10 });
    expect(third.map((job) => job.id)).toContain(first[1]!.id);
    expect(third).toHaveLength(2);
    await queue.close();
  });

  test('the cap holds with kind caps and rates: a job takes a queue slot and its kind slot, and gives both back', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ concurrency: 3, kinds: { email: { concurrency: 1 } } });
    await queue.enqueueMany(Array.from({ length: 3 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    await queue.enqueueMany(Array.from({ length: 3 }, (_, n) => ({ kind: 'webhook' as const, payload: hook(n) })));
    const claimed = await queue.claim({ max: 10 });
    expect(claimed.map((job) => job.kind).sort()).toEqual(['email', 'webhook', 'webhook']);
    expect(JSON.parse((await redis.hget(queue.keys.job(claimed.find((job) => job.kind === 'email')!.id), 'slots')) ?? '{}')).toEqual({ q: true, k: 'email' });
    const email = claimed.find((job) => job.kind === 'email')!;
    await queue.complete(email, null);
    expect(await redis.zcard(queue.keys.queueRunning)).toBe(2);
    expect(await redis.zcard(queue.keys.kindRunning('email'))).toBe(0);
    await queue.close();
  });

  test('a claim waiting on a full cap wakes when a slot frees, well before the lease would end', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 60_000 });
    await queue.setLimits({ concurrency: 1 });
    await queue.enqueue('email', mail(1));
    const waiting = await queue.enqueue('email', mail(2));
    const [held] = await queue.claim();
    expect(await queue.claim()).toHaveLength(0);
    const next = queue.claim({ blockMs: 20_000 });
    await queue.complete(held!, null);
    const [woken] = await next;
    expect(woken?.id).toBe(waiting);
    const done = await queue.getJob(held!.id);
    // Without the wake the claim would wait out its block (the lease ends in a minute).
    expect(woken!.claimedAtMs - done!.completedAtMs!).toBeLessThan(5_000);
    await queue.close();
  });

  test('an expired lease frees its queue slot without a sweep; its worker can no longer renew it', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ concurrency: 1 });
    await queue.enqueue('email', mail(1));
    await queue.enqueue('email', mail(2));
    const [held] = await queue.claim();
    expect(await queue.claim()).toHaveLength(0);
    // The lease runs out (its worker was killed): the slot counts no more, before any sweep.
    await redis.zadd(queue.keys.queueRunning, '1', held!.id);
    await redis.hset(queue.keys.job(held!.id), 'lease_expires_at_ms', '1');
    const [next] = await queue.claim();
    expect(next).toBeDefined();
    expect(await queue.extendLeases([held!], 10_000)).toEqual([null]);
    await queue.close();
  });

  test('a renewed lease moves its queue slot with it', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ concurrency: 1 });
    await queue.enqueue('email', mail(1));
    const [held] = await queue.claim();
    const [deadline] = await queue.extendLeases([held!], 600_000);
    expect(Number(await redis.zscore(queue.keys.queueRunning, held!.id))).toBe(deadline);
    await queue.close();
  });

  test('why names the queue cap and the jobs holding it', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ concurrency: 1 });
    await queue.enqueue('email', mail(1));
    const waiting = await queue.enqueue('webhook', hook(1));
    const [held] = await queue.claim();
    expect(reason(await queue.why(waiting), 'queue-cap-full')).toEqual({ code: 'queue-cap-full', cap: 1, heldBy: [held!.id], more: false, freesAtMs: held!.leaseExpiresAtMs });
    await queue.complete(held!, null);
    expect((await queue.why(waiting))?.reasons.map((r) => r.code)).not.toContain('queue-cap-full');
    await queue.close();
  });

  test('raising the cap wakes a waiting claim; a slot freed while the queue is paused leaves no wake token behind', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 60_000 });
    await queue.setLimits({ concurrency: 1 });
    await queue.enqueueMany(Array.from({ length: 3 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    const [held] = await queue.claim();
    expect(await queue.claim()).toHaveLength(0);
    // The limited claim cleared the list its workers wait on.
    expect(await redis.llen(queue.keys.resume)).toBe(0);
    const next = queue.claim({ blockMs: 20_000 });
    await queue.setLimits({ concurrency: 2 });
    const [woken] = await next;
    expect(woken).toBeDefined();
    expect(woken!.claimedAtMs - held!.claimedAtMs).toBeLessThan(5_000);
    await queue.pause();
    await queue.complete(held!, null);
    // Paused workers wait on the resume list for the resume: a token would end every wait at once.
    expect(await redis.llen(queue.keys.resume)).toBe(0);
    await queue.close();
  });

  test('a queue over its rate limit clears a token an earlier resume left, so its waits do not end at once', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.pause();
    await queue.resume();
    expect(await redis.llen(queue.keys.resume)).toBe(1);
    await queue.setLimits({ rate: { max: 1, windowMs: 60_000 } });
    await queue.enqueueMany(Array.from({ length: 2 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    expect(await queue.claim({ max: 5 })).toHaveLength(1);
    expect(await queue.claim({ max: 5 })).toHaveLength(0);
    expect(await redis.llen(queue.keys.resume)).toBe(0);
    await queue.close();
  });

  test('a bad cap is refused with a typed error naming the field, and nothing is written', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    for (const concurrency of [0, -1, 1.5, 1_000_001, '2']) {
      const error = await queue.setLimits({ concurrency } as never).catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT'), String(concurrency)).toBe(true);
      expect((error as { field?: string }).field).toBe('limits.concurrency');
    }
    expect(await redis.exists(queue.keys.admission)).toBe(0);
    await queue.close();
  });
});
