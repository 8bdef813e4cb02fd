import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { Queue } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor, within, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds } from '../src/index.ts';
import { startChildWorker } from './child-worker.ts';

const kinds = defineKinds({
  slow: { schema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
  quick: { schema: { type: 'object' } },
});

const version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Redis time on the queue's own node (a script there: on a cluster, TIME goes to any node), ms. */
async function redisNow(redis: TestRedis, key: string): Promise<number> {
  return Number(await redis.eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)", 1, key));
}

describe('worker registry', () => {
  test('a worker appears with its fields and the ids of the jobs its handlers run, and is gone once closed', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const queue = new Queue({ redis, queue: queueName, kinds });
    const release: (() => void)[] = [];
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      concurrency: 3,
      heartbeatIntervalMs: 200,
      workerId: `registry-test:${queueName}`,
      handlers: { slow: () => new Promise<void>((resolve) => release.push(resolve)), quick: () => 1 },
    });
    await worker.ready();
    const listed = await waitFor(async () => (await queue.workers()).find((w) => w.id === worker.id), { what: 'the worker in the registry' });
    expect(listed).toMatchObject({ id: worker.id, host: hostname(), pid: process.pid, version, kinds: ['slow', 'quick'], concurrency: 3, running: [], runningCount: 0 });
    // Alive for three intervals after its last heartbeat, on the Redis clock.
    expect(listed.aliveUntilMs).toBe(listed.lastSeenMs + 600);
    expect(listed.startedAtMs).toBeLessThanOrEqual(listed.lastSeenMs);

    const ids = [await producer.enqueue('slow', { ms: 0 }), await producer.enqueue('slow', { ms: 0 })];
    const busy = await waitFor(async () => {
      const [w] = await queue.workers();
      return w && w.runningCount === 2 ? w : undefined;
    }, { what: 'a heartbeat naming both running jobs' });
    expect([...busy.running].sort()).toEqual([...ids].sort());
    expect(busy.startedAtMs).toBe(listed.startedAtMs);

    for (const done of release.splice(0)) done();
    await Promise.all(ids.map((id) => producer.waitForResult(id)));
    await within(worker.close(), 15_000, () => 'worker close');
    // Gone at once, not when its TTL runs out.
    expect(await queue.workers()).toEqual([]);
    expect(await redis.exists(queue.keys.worker(worker.id))).toBe(0);
    await Promise.all([queue.close(), producer.close()]);
  });

  test('heartbeatIntervalMs: 0 registers nothing', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = createWorker({ redis, queue: queueName, kinds, heartbeatIntervalMs: 0, handlers: { slow: () => 1, quick: () => 1 } });
    // A job run proves the worker is up and working; the registry stays empty.
    expect(await producer.waitForResult(await producer.enqueue('quick', {}))).toBe(1);
    expect(await redis.exists(`queue:{${queueName}}:workers`)).toBe(0);
    await within(worker.close(), 15_000, () => 'worker close');
    await producer.close();
  });

  test('a partitioned queue\'s worker registers in partition 0', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 2 });
    const worker = createWorker({ redis, queue: queueName, kinds, partitions: 2, heartbeatIntervalMs: 200, handlers: { slow: () => 1, quick: () => 1 } });
    await waitFor(async () => (await queue.workers()).length === 1, { what: 'the worker in the registry' });
    expect(await redis.zscore(`queue:{${queueName}:p0}:workers`, worker.id)).not.toBeNull();
    expect(await redis.exists(`queue:{${queueName}:p1}:workers`)).toBe(0);
    await within(worker.close(), 15_000, () => 'worker close');
    expect(await queue.workers()).toEqual([]);
    await queue.close();
  });

  test('a SIGKILLed worker cannot leave: it drops out once Redis time passes its last heartbeat plus its TTL', async ({ redisUrl, redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const child = await startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, HEARTBEAT_MS: '300' });
    const seen = await waitFor(async () => (await queue.workers())[0], { what: 'the child worker in the registry' });
    expect(seen.pid).toBe(child.process.pid);
    expect(seen.aliveUntilMs - seen.lastSeenMs).toBe(900);
    child.process.kill('SIGKILL');
    await child.exited;
    // It could not leave: its member and deadline stay, that of its last heartbeat plus 3 intervals.
    const deadline = Number(await redis.zscore(queue.keys.workers, seen.id));
    const last = await redis.hget(queue.keys.worker(seen.id), 'last_seen_ms');
    if (last !== null) expect(deadline).toBe(Number(last) + 900);
    await waitFor(async () => (await queue.workers()).length === 0, { what: 'the killed worker to drop out' });
    expect(await redisNow(redis, queue.keys.workers)).toBeGreaterThan(deadline);
    await queue.close();
  });
});
