import { Queue } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds } from '../src/index.ts';
import { startChildWorker, type ChildWorker } from './child-worker.ts';

const kinds = defineKinds({
  slow: { schema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
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

/** The most of the intervals [start, end) that are open at one time. */
function mostAtOnce(intervals: readonly (readonly [number, number])[]): number {
  // Ends sort before starts at the same time: a slot freed at t may be taken at t.
  const edges = intervals.flatMap(([start, end]) => [[start, 1], [end, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, step] of edges) {
    open += step;
    most = Math.max(most, open);
  }
  return most;
}

async function stopAll(children: readonly ChildWorker[]): Promise<void> {
  for (const child of children) child.process.kill('SIGTERM');
  await Promise.all(children.map((child) => child.exited));
}

describe('queue-wide limits across worker processes', () => {
  test('three worker processes of 2 slots each under a queue cap of 4 never run more than 4 jobs at once', async ({ redisUrl, redis, queueName }) => {
    const cap = 4;
    const admin = new Queue({ redis, queue: queueName, kinds });
    await admin.setLimits({ concurrency: cap });
    const children = await Promise.all([0, 1, 2].map(() => startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, CONCURRENCY: '2', VISIBILITY_MS: '5000' })));
    const ids = (await admin.enqueueMany(Array.from({ length: 40 }, () => ({ kind: 'slow' as const, payload: { ms: 30 } })))).map((result) => result.id);
    await waitFor(async () => (await admin.stats()).completedTotal === ids.length || undefined, { timeoutMs: 30_000, what: 'every job completed' });
    // Each job held its slot from its claim to its completion, both on the Redis clock.
    const jobs = await Promise.all(ids.map((id) => admin.getJob(id)));
    const held = jobs.map((job) => [job?.claimedAtMs ?? Number.NaN, job?.completedAtMs ?? Number.NaN] as const);
    expect(held.flat().every(Number.isFinite)).toBe(true);
    const most = mostAtOnce(held);
    process.stdout.write(`queue cap ${cap}, 3 processes of 2 slots: at most ${most} jobs running at once\n`);
    expect(most).toBeLessThanOrEqual(cap);
    // The cap was what bounded them (6 slots in all), and more than one process took a share.
    expect(most).toBe(cap);
    expect(new Set(jobs.map((job) => (job?.result as { pid: number }).pid)).size).toBeGreaterThan(1);
    expect(await redis.zcard(admin.keys.queueRunning)).toBe(0);
    await stopAll(children);
    await admin.close();
  });

  test("a kill -9'ed worker holding the queue cap's last slot gives it back when its lease ends, with no operator action", async ({ redisUrl, redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    await producer.setLimits({ concurrency: 1 });
    const child = await startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, VISIBILITY_MS: '500' });
    const held = await producer.enqueue('slow', { ms: 60_000 });
    await child.waitForOutput(`started ${held}`);
    const next = await producer.enqueue('slow', { ms: 1 });
    child.process.kill('SIGKILL');
    await child.exited;
    const [seconds, micros] = await redis.time();
    const killedAt = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    // No sweeps (an hour apart): the slot comes back by the lease alone.
    const survivor = createWorker({ redis, queue: queueName, kinds, visibilityMs: 500, reclaimIntervalMs: 3_600_000, handlers: { slow: () => 'ran' } });
    expect(await producer.waitForResult(next, { timeoutMs: 15_000 })).toBe('ran');
    const job = await producer.getJob(next);
    expect(job?.claimedAtMs).toBeGreaterThan(killedAt);
    await Promise.all([survivor.close(), producer.close()]);
  });

  test('a spread limit of 100/s over three worker processes starts at most 12 in any sliding 100 ms and 100 in any sliding second', async ({ redisUrl, redis, queueName }) => {
    const admin = new Queue({ redis, queue: queueName, kinds });
    await admin.setLimits({ rate: { max: 100, windowMs: 1_000, spread: true } });
    const children = await Promise.all([0, 1, 2].map(() => startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, CONCURRENCY: '8', VISIBILITY_MS: '5000' })));
    // Three seconds of work at the limit, all waiting from the start.
    const ids = (await admin.enqueueMany(Array.from({ length: 300 }, () => ({ kind: 'slow' as const, payload: { ms: 1 } })))).map((result) => result.id);
    await waitFor(async () => (await admin.stats()).completedTotal === ids.length || undefined, { timeoutMs: 60_000, what: 'every job completed' });
    const jobs = await Promise.all(ids.map((id) => admin.getJob(id)));
    const starts = jobs.map((job) => job?.claimedAtMs ?? Number.NaN);
    expect(starts.every(Number.isFinite)).toBe(true);
    const per100 = mostInWindow(starts, 100);
    const perSecond = mostInWindow(starts, 1_000);
    const span = Math.max(...starts) - Math.min(...starts);
    process.stdout.write(`spread 100/s, 3 processes, ${ids.length} jobs over ${span} ms: at most ${per100} in a sliding 100 ms, ${perSecond} in a sliding second\n`);
    expect(per100).toBeLessThanOrEqual(12);
    expect(perSecond).toBeLessThanOrEqual(100);
    // Paced, not starved: 300 starts at 99/s (burst 2) take about three seconds.
    expect(span).toBeGreaterThanOrEqual(2_900);
    expect(span).toBeLessThan(12_000);
    expect(new Set(jobs.map((job) => (job?.result as { pid: number }).pid)).size).toBeGreaterThan(1);
    await stopAll(children);
    await admin.close();
  });
});
