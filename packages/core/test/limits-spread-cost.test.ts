import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError } from '../src/index.ts';
import { openQueue, reason } from './fixtures.ts';

const mail = (n: number) => ({ recipient: 'a@example.com', n });
const hook = (n: number) => ({ url: `https://example.com/${n}` });

describe('spread rate limits', () => {
  test('a spread limit lets its burst start at once, then one per interval, and reads back with its burst', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    // 10 per second with a burst of 2: one start every 1000 / (10 - 2 + 1) ms, 111.2 ms.
    await queue.setLimits({ rate: { max: 10, windowMs: 1_000, spread: true, burst: 2 } });
    expect((await queue.limits()).rate).toEqual({ max: 10, windowMs: 1_000, spread: true, burst: 2 });
    await queue.enqueueMany(Array.from({ length: 6 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    const burst = await queue.claim({ max: 10 });
    expect(burst).toHaveLength(2);
    expect(await queue.claim({ max: 10 })).toHaveLength(0);
    // The rest come one per interval, paced from the burst's start (Redis clock): a claim that
    // wakes late (a busy machine) may take two at once, never one before its time.
    const paced: number[] = [];
    while (paced.length < 4) for (const job of await queue.claim({ max: 10, blockMs: 5_000 })) paced.push(job.claimedAtMs);
    paced.sort((a, b) => a - b).forEach((at, i) => expect(at - burst[0]!.claimedAtMs).toBeGreaterThanOrEqual(111 * (i + 1)));
    await queue.close();
  });

  test('spread with no burst given takes ceil(max / 50); a kind spread limit parks its kind while others go on', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ kinds: { email: { rate: { max: 100, windowMs: 60_000, spread: true } } } });
    expect((await queue.limits()).kinds?.email?.rate).toEqual({ max: 100, windowMs: 60_000, spread: true, burst: 2 });
    await queue.enqueueMany(Array.from({ length: 4 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    const other = await queue.enqueue('webhook', hook(1));
    const claimed = await queue.claim({ max: 10 });
    expect(claimed.filter((job) => job.kind === 'email')).toHaveLength(2);
    expect(claimed.map((job) => job.id)).toContain(other);
    expect((await queue.stats()).parkedDepth).toBe(2);
    // The arrival time is one string in Redis, in µs on the Redis clock.
    expect(Number(await redis.get(queue.keys.kindSpread('email')))).toBeGreaterThan(claimed[0]!.claimedAtMs * 1000);
    await queue.close();
  });

  test('a group spread limit holds for each group on its own', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ groups: { rate: { max: 1, windowMs: 60_000, spread: true } } });
    for (const group of ['a', 'a', 'b', 'b']) await queue.enqueue('email', mail(0), { group });
    const claimed = await queue.claim({ max: 10 });
    expect(claimed).toHaveLength(2);
    expect(await queue.claim({ max: 10 })).toHaveLength(0);
    await queue.close();
  });

  test('why says when a spread limit lets the next job start', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ rate: { max: 2, windowMs: 60_000, spread: true, burst: 1 } });
    await queue.enqueue('email', mail(1));
    const waiting = await queue.enqueue('email', mail(2));
    const [started] = await queue.claim({ max: 10 });
    expect(reason(await queue.why(waiting), 'rate-limited')).toEqual({
      code: 'rate-limited', scope: 'queue', max: 2, windowMs: 60_000, spread: true, burst: 1, untilMs: started!.claimedAtMs + 30_000,
    });
    await queue.close();
  });

  test('switching a limit between spread and a sliding window keeps working: each has its own key', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueueMany(Array.from({ length: 4 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    await queue.setLimits({ rate: { max: 1, windowMs: 60_000, spread: true, burst: 1 } });
    expect(await queue.claim({ max: 10 })).toHaveLength(1);
    await queue.setLimits({ rate: { max: 2, windowMs: 60_000 } });
    expect(await queue.claim({ max: 10 })).toHaveLength(2);
    expect(await redis.type(queue.keys.spread)).toBe('string');
    expect(await redis.type(queue.keys.rate)).toBe('zset');
    await queue.close();
  });
});

describe('job costs', () => {
  test('a job of cost 5 under 10 per window uses half the window', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ rate: { max: 10, windowMs: 60_000 } });
    const heavy = await queue.enqueue('email', mail(0), { cost: 5 });
    expect(await redis.hget(queue.keys.job(heavy), 'cost')).toBe('5');
    await queue.enqueueMany(Array.from({ length: 10 }, (_, n) => ({ kind: 'email' as const, payload: mail(n + 1) })));
    const claimed = await queue.claim({ max: 20 });
    expect(claimed.map((job) => job.id)).toContain(heavy);
    expect(claimed).toHaveLength(6);
    expect(await redis.zcard(queue.keys.rate)).toBe(10);
    await queue.close();
  });

  test('a job costing more than the room left waits first in line: the cheaper jobs behind it do not overtake it', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ rate: { max: 10, windowMs: 60_000 } });
    await queue.enqueueMany(Array.from({ length: 8 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    expect(await queue.claim({ max: 20 })).toHaveLength(8);
    const heavy = await queue.enqueue('email', mail(0), { cost: 3 });
    const light = await queue.enqueue('email', mail(1));
    expect(await queue.claim({ max: 20 })).toHaveLength(0);
    expect(await redis.lrange(queue.keys.pending, 0, -1)).toEqual([light, heavy]);
    await queue.close();
  });

  test("why counts a job's cost: a window with room for one more start is full for a job of cost 3", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ rate: { max: 10, windowMs: 60_000 } });
    await queue.enqueueMany(Array.from({ length: 8 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    const started = await queue.claim({ max: 20 });
    const heavy = await queue.enqueue('email', mail(0), { cost: 3 });
    const light = await queue.enqueue('email', mail(1));
    expect(reason(await queue.why(heavy), 'rate-limited')).toMatchObject({ scope: 'queue', max: 10, untilMs: started[0]!.claimedAtMs + 60_000 });
    expect((await queue.why(light))?.reasons.map((r) => r.code)).not.toContain('rate-limited');
    await queue.close();
  });

  test('cost counts against spread limits, and against kind and group rates', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ rate: { max: 10, windowMs: 60_000, spread: true, burst: 10 }, kinds: { webhook: { rate: { max: 4, windowMs: 60_000 } } }, groups: { rate: { max: 3, windowMs: 60_000 } } });
    // Queue: 10 tokens at once. The webhook of cost 3 fits its kind's 4, the next one does not.
    const hooks = [await queue.enqueue('webhook', hook(0), { cost: 3 }), await queue.enqueue('webhook', hook(1), { cost: 3 })];
    // Group g: 3 tokens, so its cost-2 job runs and its second one waits for the group.
    const grouped = [await queue.enqueue('email', mail(0), { group: 'g', cost: 2 }), await queue.enqueue('email', mail(1), { group: 'g', cost: 2 })];
    const mails = await queue.enqueueMany(Array.from({ length: 6 }, (_, n) => ({ kind: 'email' as const, payload: mail(n + 2) })));
    const claimed = (await queue.claim({ max: 20 })).map((job) => job.id);
    expect(claimed).toContain(hooks[0]);
    expect(claimed).not.toContain(hooks[1]);
    expect(claimed).toContain(grouped[0]);
    expect(claimed).not.toContain(grouped[1]);
    // 3 + 2 of the queue's 10 taken: 5 of the cost-1 jobs started, the sixth waits.
    expect(claimed.filter((id) => mails.some((m) => m.id === id))).toHaveLength(5);
    await queue.close();
  });

  test("a kind's heavy job that does not fit is parked, and the kind's cheaper jobs wait behind it: they come back in order", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ kinds: { email: { rate: { max: 10, windowMs: 300 } } } });
    const first = await queue.enqueue('email', mail(0), { cost: 8 });
    const heavy = await queue.enqueue('email', mail(1), { cost: 5 });
    const light = (await queue.enqueueMany(Array.from({ length: 3 }, (_, n) => ({ kind: 'email' as const, payload: mail(n + 2) })))).map((r) => r.id);
    const other = await queue.enqueue('webhook', hook(0));
    // 2 of the window's 10 are left: the cost-5 job does not fit, and the cost-1 ones do not pass it.
    expect((await queue.claim({ max: 10 })).map((job) => job.id).sort()).toEqual([first, other].sort());
    expect((await queue.stats()).parkedDepth).toBe(4);
    // The window passes: they come back oldest first, as many as fit (5 + 3 of 10).
    const next = await queue.claim({ max: 10, blockMs: 5_000 });
    expect(next.map((job) => job.id)).toEqual([heavy, ...light]);
    await queue.close();
  });

  test('a bad cost is refused with a typed error naming the field, and nothing is written', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    for (const cost of [0, -1, 1.5, 1_001, '2']) {
      const error = await queue.enqueue('email', mail(1), { cost } as never).catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT'), String(cost)).toBe(true);
      expect((error as { field?: string }).field).toBe('options.cost');
    }
    expect(await redis.llen(queue.keys.pending)).toBe(0);
    const plain = await queue.enqueue('email', mail(1), { cost: 1 });
    expect(await redis.hexists(queue.keys.job(plain), 'cost')).toBe(0);
    await queue.close();
  });

  test('bad spread settings are refused with a typed error naming the field, and nothing is written', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const bad: [unknown, string][] = [
      [{ rate: { max: 10, windowMs: 1_000, burst: 2 } }, 'limits.rate.burst'],
      [{ rate: { max: 10, windowMs: 1_000, spread: 'yes' } }, 'limits.rate.spread'],
      [{ rate: { max: 10, windowMs: 1_000, spread: true, burst: 11 } }, 'limits.rate.burst'],
      [{ rate: { max: 10, windowMs: 1_000, spread: true, burst: 0 } }, 'limits.rate.burst'],
      [{ rate: { max: 10, windowMs: 1_000, mode: 'gcra' } }, 'limits.rate.mode'],
      [{ kinds: { email: { rate: { max: 10, windowMs: 1_000, spread: 1 } } } }, 'limits.kinds.email.rate.spread'],
      [{ groups: { rate: { max: 10, windowMs: 1_000, burst: 1 } } }, 'limits.groups.rate.burst'],
    ];
    for (const [limits, field] of bad) {
      const error = await queue.setLimits(limits as never).catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT'), JSON.stringify(limits)).toBe(true);
      expect((error as { field?: string }).field).toBe(field);
    }
    expect(await redis.exists(queue.keys.admission)).toBe(0);
    await queue.close();
  });
});
