import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, Queue, RateLimitedError } from '../src/index.ts';
import { kinds, openQueue } from './fixtures.ts';

const mail = (n: number) => ({ recipient: 'a@example.com', n });
const hook = (n: number) => ({ url: `https://example.com/${n}` });

describe('rate limits', () => {
  test('the queue rate limit lets at most max jobs start per sliding window, and says when the next may', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ rate: { max: 3, windowMs: 60_000 } });
    await queue.enqueueMany(Array.from({ length: 5 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    expect(await queue.claim({ max: 10 })).toHaveLength(3);
    expect(await queue.claim({ max: 10 })).toHaveLength(0);
    // The reply says until when: minus a time about a window from now.
    const reply = (await redis.zrange(queue.keys.rate, '0', '-1', 'WITHSCORES')) as string[];
    expect(reply).toHaveLength(6);
    expect(await queue.stats()).toMatchObject({ pendingDepth: 2, processingDepth: 3, limits: { rate: { max: 3, windowMs: 60_000 } } });
    await queue.close();
  });

  test('a window that has passed lets the next jobs start, and a blocked claim wakes when it does', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ rate: { max: 2, windowMs: 300 } });
    await queue.enqueueMany(Array.from({ length: 4 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    const first = await queue.claim({ max: 10 });
    expect(first).toHaveLength(2);
    const second = await queue.claim({ max: 10, blockMs: 5_000 });
    expect(second).toHaveLength(2);
    // Redis clock: the second pair started no sooner than a window after the first.
    expect((second[0]?.claimedAtMs ?? 0) - (first[0]?.claimedAtMs ?? 0)).toBeGreaterThanOrEqual(300);
    await queue.close();
  });

  test('a kind rate limit holds that kind back (parked) while other kinds go on, in priority order', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ kinds: { email: { rate: { max: 1, windowMs: 60_000 } } } });
    const low = await queue.enqueue('email', mail(1), { priority: -5 });
    await queue.enqueue('email', mail(2));
    const high = await queue.enqueue('email', mail(3), { priority: 5 });
    const other = await queue.enqueue('webhook', hook(1));
    const claimed = await queue.claim({ max: 10 });
    // The high-priority email is the one that starts: priority holds for a rate-limited kind.
    expect(claimed.map((job) => job.id).sort()).toEqual([high, other].sort());
    expect((await queue.stats()).parkedDepth).toBe(2);
    await queue.setLimits({});
    const rest = await queue.claim({ max: 10 });
    expect(rest.map((job) => job.id)).toContain(low);
    expect(rest).toHaveLength(2);
    await queue.close();
  });

  test('bad limits are refused with a typed error and write nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const bad = [
      { rate: { max: 0, windowMs: 1000 } },
      { rate: { max: -1, windowMs: 1000 } },
      { rate: { max: 5, windowMs: 5 } },
      { kinds: { email: { concurrency: 0 } } },
      { kinds: { nope: { concurrency: 1 } } },
      { groups: { rate: { max: 1.5, windowMs: 1000 } } },
      { groups: { concurrency: -2 } },
    ];
    for (const limits of bad) {
      const error = await queue.setLimits(limits as never).catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT'), JSON.stringify(limits)).toBe(true);
    }
    expect(await redis.exists(queue.keys.admission)).toBe(0);
    const tooLong = await queue.enqueue('email', mail(1), { group: 'g'.repeat(129) }).catch((e: unknown) => e);
    expect(isJobsError(tooLong, 'JOBS_INVALID_ARGUMENT')).toBe(true);
    expect((tooLong as { field?: string }).field).toBe('options.group');
    expect(await redis.llen(queue.keys.pending)).toBe(0);
    expect(() => new RateLimitedError(0)).toThrow(/retryAfterMs/);
    await queue.close();
  });
});

describe('concurrency caps', () => {
  test('a kind cap holds across claims; completing frees the slot and hands it to the next parked job', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ kinds: { email: { concurrency: 2 } } });
    await queue.enqueueMany(Array.from({ length: 4 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    const first = await queue.claim({ max: 10 });
    expect(first).toHaveLength(2);
    expect(await queue.claim({ max: 10 })).toHaveLength(0);
    expect(await redis.zcard(queue.keys.kindRunning('email'))).toBe(2);
    await queue.complete(first[0]!, null);
    expect(await redis.zcard(queue.keys.kindRunning('email'))).toBe(1);
    const next = await queue.claim({ max: 10 });
    expect(next).toHaveLength(1);
    await queue.fail(next[0]!, new Error('x'), { permanent: true });
    await queue.release([first[1]!]);
    expect(await redis.zcard(queue.keys.kindRunning('email'))).toBe(0);
    expect(await queue.claim({ max: 10 })).toHaveLength(2);
    await queue.close();
  });

  test('an expired lease frees its slot without a sweep; its worker can no longer renew it', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ kinds: { email: { concurrency: 1 } } });
    await queue.enqueue('email', mail(1));
    await queue.enqueue('email', mail(2));
    const [held] = await queue.claim({ max: 10 });
    expect(await queue.claim()).toHaveLength(0);
    // The lease runs out (its worker was killed): the slot counts no more, before any sweep.
    await redis.zadd(queue.keys.kindRunning('email'), '1', held!.id);
    await redis.hset(queue.keys.job(held!.id), 'lease_expires_at_ms', '1');
    const [next] = await queue.claim({ max: 10 });
    expect(next).toBeDefined();
    expect(await queue.extendLeases([held!], 10_000)).toEqual([null]);
    await queue.close();
  });
});

describe('RateLimitedError pushback', () => {
  test('the kind is not claimed until the time is over; the job goes back first without using an attempt', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('webhook', hook(1));
    const after = await queue.enqueue('webhook', hook(2));
    const other = await queue.enqueue('email', mail(1));
    const [job] = await queue.claim();
    expect(job?.id).toBe(id);
    const until = await queue.rateLimited(job!, 400);
    expect((await queue.getJob(id))).toMatchObject({ status: 'pending', attempts: 0 });
    expect((await queue.claim({ max: 10 })).map((j) => j.id)).toEqual([other]);
    expect((await queue.limits()).limitedUntil.webhook).toBe(until);
    const again = await queue.claim({ max: 10, blockMs: 5_000 });
    expect(again.map((j) => j.id)).toEqual([id, after]);
    expect(again[0]?.attempts).toBe(1);
    expect(again[0]!.claimedAtMs).toBeGreaterThanOrEqual(until);
    expect((await queue.stats()).rateLimitedTotal).toBe(1);
    await queue.close();
  });
  test("a pushback is in the job's timeline as a release with code RATE_LIMITED, by the worker that got it", async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, eventLog: true, workerId: 'w-7' });
    const id = await queue.enqueue('webhook', hook(1));
    const [job] = await queue.claim();
    await queue.rateLimited(job!, 60_000);
    const events = (await queue.timeline(id))?.events ?? [];
    expect(events.map((event) => [event.event, event.code, event.worker])).toEqual([
      ['enqueued', null, null],
      ['claimed', null, 'w-7'],
      ['released', 'RATE_LIMITED', 'w-7'],
    ]);
    await queue.close();
  });
});

describe('groups', () => {
  test('a group cap of 1 runs one job of a group at a time, in order, while other groups go on', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ groups: { concurrency: 1 } });
    const a: string[] = [];
    for (let n = 0; n < 3; n += 1) a.push(await queue.enqueue('email', mail(n), { group: 'acme' }));
    const b = await queue.enqueue('email', mail(9), { group: 'globex' });
    const first = await queue.claim({ max: 10 });
    expect(first.map((job) => job.id).sort()).toEqual([a[0], b].sort());
    expect(await queue.claim({ max: 10 })).toHaveLength(0);
    await queue.complete(first.find((job) => job.id === a[0])!, null);
    const second = await queue.claim({ max: 10 });
    expect(second.map((job) => job.id)).toEqual([a[1]]);
    await queue.complete(second[0]!, null);
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([a[2]]);
    await queue.close();
  });

  test('a released or reclaimed job runs again before the next job of its group: the group keeps its order', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ groups: { concurrency: 1 } });
    const a = await queue.enqueue('email', mail(1), { group: 'acme' });
    const b = await queue.enqueue('email', mail(2), { group: 'acme' });
    const [first] = await queue.claim({ max: 10 });
    expect(first?.id).toBe(a);
    expect(await queue.release([first!])).toEqual([true]);
    const [again] = await queue.claim({ max: 10 });
    expect(again?.id).toBe(a);
    // Its worker died: the lease ran out, and the reclaim puts it back first too.
    await redis.zadd(queue.keys.leases, '1', a);
    await redis.hset(queue.keys.job(a), 'lease_expires_at_ms', '1');
    expect((await queue.reclaimStuck()).reclaimed).toEqual([a]);
    const [third] = await queue.claim({ max: 10 });
    expect(third?.id).toBe(a);
    await queue.complete(third!, null);
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([b]);
    await queue.close();
  });

  test("a job whose service pushed back hands its group's turn on while its kind waits", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ groups: { concurrency: 1 } });
    const a = await queue.enqueue('webhook', hook(1), { group: 'acme' });
    const b = await queue.enqueue('email', mail(2), { group: 'acme' });
    const [first] = await queue.claim({ max: 10 });
    expect(first?.id).toBe(a);
    await queue.rateLimited(first!, 60_000);
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([b]);
    expect((await queue.getJob(a))?.status).toBe('pending');
    await queue.close();
  });

  test("a flow's jobs keep their group: children of one group run one at a time, and the parent starts in its group's turn", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ groups: { concurrency: 1 } });
    const flow = await queue.enqueueFlow({
      kind: 'email',
      payload: mail(0),
      options: { group: 'acme' },
      children: [1, 2].map((n) => ({ kind: 'email' as const, payload: mail(n), options: { group: 'acme' } })),
    });
    expect((await queue.getJob(flow.id))?.fields.group).toBe('acme');
    const first = await queue.claim({ max: 10 });
    expect(first.map((job) => job.id)).toEqual([flow.children[0]?.id]);
    expect(await queue.claim({ max: 10 })).toHaveLength(0);
    await queue.complete(first[0]!, null);
    const second = await queue.claim({ max: 10 });
    expect(second.map((job) => job.id)).toEqual([flow.children[1]?.id]);
    await queue.complete(second[0]!, null);
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([flow.id]);
    await queue.close();
  });

  test('a job with a traceparent and a group keeps both, and a tracing claim returns the traceparent', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, claimTraceparent: true });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const id = await queue.enqueue('email', mail(1), { group: 'acme', traceparent });
    const flow = await queue.enqueueFlow({ kind: 'email', payload: mail(2), options: { group: 'acme', traceparent } });
    expect((await queue.getJob(id))?.fields).toMatchObject({ group: 'acme', traceparent });
    expect((await queue.getJob(flow.id))?.fields).toMatchObject({ group: 'acme', traceparent });
    const claimed = await queue.claim({ max: 10 });
    expect(claimed.map((job) => [job.id, job.traceparent])).toEqual([[id, traceparent], [flow.id, traceparent]]);
    await queue.close();
  });

  test('groups take turns: a busy group does not keep a quiet one waiting', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueueMany(Array.from({ length: 50 }, (_, n) => ({ kind: 'email' as const, payload: mail(n), options: { group: 'busy' } })));
    const quiet = await queue.enqueue('email', mail(99), { group: 'quiet' });
    const claimed = await queue.claim({ max: 5 });
    expect(claimed.map((job) => job.id)).toContain(quiet);
    await queue.close();
  });
});

describe('limits at scale', () => {
  test('a per-group rate limit holds for each of 10,000 groups: one start each per window, no group twice', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ groups: { rate: { max: 1, windowMs: 600_000 } } });
    const groups = 10_000;
    for (let round = 0; round < 2; round += 1) {
      for (let first = 0; first < groups; first += 2_000) {
        await queue.enqueueMany(Array.from({ length: 2_000 }, (_, i) => ({ kind: 'email' as const, payload: mail(first + i), options: { group: `tenant-${first + i}` } })));
      }
    }
    const seen = new Set<string>();
    for (;;) {
      const jobs = await queue.claim({ max: 1_000 });
      if (jobs.length === 0) break;
      for (const job of jobs) {
        const group = `tenant-${(job.payload as { n: number }).n}`;
        expect(seen.has(group), group).toBe(false);
        seen.add(group);
      }
    }
    expect(seen.size).toBe(groups);
    expect((await queue.stats()).groupsWaiting).toBe(groups);
    await queue.close();
  }, 120_000);
});

describe('pushback with a backlog', () => {
  test('when a pushback is over, every job it parked comes back, however few each claim asks for', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('webhook', hook(0));
    const [job] = await queue.claim();
    await queue.rateLimited(job!, 200);
    await queue.enqueueMany(Array.from({ length: 5 }, (_, n) => ({ kind: 'webhook' as const, payload: hook(n + 1) })));
    expect(await queue.claim({ max: 10 })).toEqual([]);
    expect((await queue.stats()).parkedDepth).toBe(6);
    const taken: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const [next] = await queue.claim({ max: 1, blockMs: 5_000 });
      taken.push(next!.id);
    }
    expect(new Set(taken).size).toBe(6);
    expect(taken[0]).toBe(job!.id);
    expect((await queue.limits()).limitedUntil).toEqual({});
    await queue.close();
  });
});
