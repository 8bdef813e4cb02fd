import { Queue } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor } from '@jobs/testing';
import * as promClient from 'prom-client';
import { Registry } from 'prom-client';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds, RateLimitedError } from '../src/index.ts';
import { startChildWorker } from './child-worker.ts';

const kinds = defineKinds({
  slow: { schema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
  call: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, maxAttempts: 1 },
});

/** The most of `times` (ms) that fall in any window [t, t + windowMs). */
function mostInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last += 1) {
    while ((sorted[last] as number) - (sorted[first] as number) >= windowMs) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

describe('limits across worker processes', () => {
  test('three worker processes sharing a limit of 20/s never start more than 20 jobs in any sliding second', async ({ redisUrl, redis, queueName }) => {
    const limit = 20;
    const admin = new Queue({ redis, queue: queueName, kinds });
    await admin.setLimits({ rate: { max: limit, windowMs: 1_000 } });
    const children = await Promise.all([0, 1, 2].map(() => startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, CONCURRENCY: '8', VISIBILITY_MS: '5000' })));
    // About four seconds of work at the limit, all waiting from the start.
    const ids = (await admin.enqueueMany(Array.from({ length: limit * 4 + 5 }, () => ({ kind: 'slow' as const, payload: { ms: 1 } })))).map((result) => result.id);
    await waitFor(async () => (await admin.stats()).completedTotal === ids.length || undefined, { timeoutMs: 30_000, what: 'every job completed' });
    // The claim's start times, on the Redis clock.
    const starts = await Promise.all(ids.map(async (id) => (await admin.getJob(id))?.claimedAtMs ?? Number.NaN));
    expect(starts.every(Number.isFinite)).toBe(true);
    const most = mostInWindow(starts, 1_000);
    process.stdout.write(`rate limit ${limit}/s, 3 processes, ${ids.length} jobs over ${Math.max(...starts) - Math.min(...starts)} ms: at most ${most} starts in a sliding second\n`);
    expect(most).toBeLessThanOrEqual(limit);
    // Each process took a share: the limit held across processes, not inside one.
    const pids = new Set(await Promise.all(ids.map(async (id) => ((await admin.getJob(id))?.result as { pid: number }).pid)));
    expect(pids.size).toBeGreaterThan(1);
    for (const child of children) child.process.kill('SIGTERM');
    await Promise.all(children.map((child) => child.exited));
    await admin.close();
  });

  test("a kill -9'ed worker holding the last slot of a kind gives it back when its lease ends, with no operator action", async ({ redisUrl, redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    await producer.setLimits({ kinds: { slow: { concurrency: 1 } } });
    const child = await startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, VISIBILITY_MS: '500' });
    const held = await producer.enqueue('slow', { ms: 60_000 });
    await child.waitForOutput(`started ${held}`);
    const next = await producer.enqueue('slow', { ms: 1 });
    child.process.kill('SIGKILL');
    await child.exited;
    const [seconds, micros] = await redis.time();
    const killedAt = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    // No sweeps here (reclaimIntervalMs 0 would still sweep; an hour keeps them out of the way):
    // the slot comes back by the lease alone.
    const survivor = createWorker({ redis, queue: queueName, kinds, visibilityMs: 500, reclaimIntervalMs: 3_600_000, handlers: { slow: () => 'ran', call: () => null } });
    expect(await producer.waitForResult(next, { timeoutMs: 15_000 })).toBe('ran');
    const job = await producer.getJob(next);
    process.stdout.write(`slot back after kill -9: the next job started ${(job?.claimedAtMs ?? 0) - killedAt} ms after the kill (lease 500 ms)\n`);
    expect(job?.claimedAtMs).toBeGreaterThan(killedAt);
    await Promise.all([survivor.close(), producer.close()]);
  });
});

describe('limits in a worker', () => {
  test('a RateLimitedError holds the kind on every worker for its time, and the job runs again without using its one attempt', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    let pushedBack = false;
    const handlers = (worker: string) => ({
      slow: () => null,
      call: async ({ n }: { n: number }) => {
        if (n === 0 && !pushedBack) {
          pushedBack = true;
          throw new RateLimitedError(800);
        }
        return worker;
      },
    });
    const registry = new Registry();
    const first = createWorker({ redis, queue: queueName, kinds, concurrency: 1, handlers: handlers('first'), metrics: { promClient, registry } });
    const second = createWorker({ redis, queue: queueName, kinds, concurrency: 4, handlers: handlers('second'), metrics: { promClient, registry } });
    const events: number[] = [];
    for (const worker of [first, second]) worker.on('rateLimited', ({ untilMs }) => events.push(untilMs));
    const id = await producer.enqueue('call', { n: 0 });
    // Until when the kind is held, on the Redis clock that the claims' times are on too.
    const until = await waitFor(() => events[0], { what: 'the pushback' });
    const others = await Promise.all([1, 2, 3].map((n) => producer.enqueue('call', { n })));
    // Another kind is not held back.
    const slow = await producer.enqueue('slow', { ms: 1 });
    expect(await producer.waitForResult(slow, { timeoutMs: 5_000 })).toBeNull();
    expect(await producer.waitForResult(id, { timeoutMs: 10_000 })).toMatch(/first|second/);
    await Promise.all(others.map((other) => producer.waitForResult(other, { timeoutMs: 10_000 })));
    // No worker claimed a job of the kind before the pushback was over: neither the job that got
    // it nor the three enqueued during it.
    const claims = await Promise.all([id, ...others].map(async (job) => (await producer.getJob(job))?.claimedAtMs ?? Number.NaN));
    expect(claims.every((claimedAt) => claimedAt >= until)).toBe(true);
    const job = await producer.getJob(id);
    expect(job).toMatchObject({ status: 'completed', attempts: 1 });
    expect((await producer.stats()).rateLimitedTotal).toBe(1);
    // The worker that got the pushback counted it, with the time it holds the kind.
    const metrics = await registry.metrics();
    expect(metrics).toContain(`jobs_worker_rate_limit_waits_total{queue="${queueName}",kind="call"} 1`);
    expect(metrics).toContain(`jobs_worker_rate_limit_wait_seconds_sum{queue="${queueName}",kind="call"} 0.8`);
    await Promise.all([first.close(), second.close(), producer.close()]);
  });

  test('a group cap of 1 never shows two running jobs of one group, across two workers', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    await producer.setLimits({ groups: { concurrency: 1 } });
    const running = new Map<string, number>();
    let overlaps = 0;
    let most = 0;
    const handler = async ({ n }: { n: number }, { id }: { id: string }) => {
      const group = `g${n % 4}`;
      const now = (running.get(group) ?? 0) + 1;
      running.set(group, now);
      most = Math.max(most, now);
      if (now > 1) overlaps += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      running.set(group, (running.get(group) ?? 1) - 1);
      return id;
    };
    const workers = [0, 1].map(() => createWorker({ redis, queue: queueName, kinds, concurrency: 6, handlers: { slow: () => null, call: handler } }));
    const ids = (await producer.enqueueMany(Array.from({ length: 60 }, (_, n) => ({ kind: 'call' as const, payload: { n }, options: { group: `g${n % 4}` } })))).map((r) => r.id);
    await Promise.all(ids.map((id) => producer.waitForResult(id, { timeoutMs: 20_000 })));
    expect(overlaps).toBe(0);
    expect(most).toBe(1);
    await Promise.all([...workers.map((worker) => worker.close()), producer.close()]);
  });
});
