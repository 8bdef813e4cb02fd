import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { leaveRegistry, sendHeartbeat, type WorkerHeartbeat } from '../src/internal.ts';
import { isJobsError, Queue, queueKeys, type RedisClient } from '../src/index.ts';
import { WORKERS_MAX } from '../src/generated/constants.ts';
import { expandLua } from '../tools/generate-scripts.mjs';
import { kinds, openQueue } from './fixtures.ts';

/** A heartbeat of worker `id` handling every kind of the fixtures' queue, alive for a minute. */
function beat(id: string, more: Partial<WorkerHeartbeat> = {}): WorkerHeartbeat {
  return { id, host: 'box-1', pid: 4242, version: '1.2.3', kinds: ['email', 'webhook'], concurrency: 8, running: [], ttlMs: 60_000, ...more };
}

/** Redis time, ms. */
async function redisNow(redis: RedisClient, key: string): Promise<number> {
  // On a cluster, TIME goes to any node: a script on the queue's own node reads its clock.
  const ms = await redis.eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)", 1, key);
  return Number(ms);
}

describe('worker registry', () => {
  test('a heartbeat registers the worker with its fields, listed by workers() until its TTL from the last heartbeat', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ctx = queue.partitions[0]!.ctx;
    const first = await sendHeartbeat(ctx, beat('w-1', { running: ['job-a', 'job-b'] }));
    expect(first.aliveUntilMs).toBe(first.nowMs + 60_000);
    const [listed] = await queue.workers();
    expect(listed).toEqual({
      id: 'w-1', host: 'box-1', pid: 4242, version: '1.2.3', kinds: ['email', 'webhook'], concurrency: 8, quiet: false,
      running: ['job-a', 'job-b'], runningCount: 2, startedAtMs: first.nowMs, lastSeenMs: first.nowMs, aliveUntilMs: first.aliveUntilMs,
    });
    // The layout the other readers rely on: the zset scored by the deadline, the hash expiring then.
    const keys = queueKeys(queueName);
    expect(Number(await redis.zscore(keys.workers, 'w-1'))).toBe(first.aliveUntilMs);
    expect(Number(await redis.pexpiretime(keys.worker('w-1')))).toBe(first.aliveUntilMs);
    expect(Number(await redis.pexpiretime(keys.workers))).toBe(first.aliveUntilMs);

    const second = await sendHeartbeat(ctx, beat('w-1', { startedAtMs: first.nowMs, running: [] }));
    const [again] = await queue.workers();
    expect(again).toMatchObject({ startedAtMs: first.nowMs, lastSeenMs: second.nowMs, aliveUntilMs: second.nowMs + 60_000, running: [], runningCount: 0 });
    await queue.close();
  });

  test('a worker whose deadline passed is not listed, and the next heartbeat trims it with its hash gone', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ctx = queue.partitions[0]!.ctx;
    const keys = queueKeys(queueName);
    const dying = await sendHeartbeat(ctx, beat('w-dying', { ttlMs: 50 }));
    await sendHeartbeat(ctx, beat('w-alive'));
    await waitFor(async () => (await queue.workers()).length === 1, { what: 'the short-lived worker to drop out' });
    expect((await queue.workers()).map((worker) => worker.id)).toEqual(['w-alive']);
    expect(await redisNow(redis, keys.workers)).toBeGreaterThan(dying.aliveUntilMs);
    expect(await redis.exists(keys.worker('w-dying'))).toBe(0);
    // Still a member until a heartbeat trims it.
    expect(await redis.zscore(keys.workers, 'w-dying')).not.toBeNull();
    await sendHeartbeat(ctx, beat('w-alive'));
    expect(await redis.zscore(keys.workers, 'w-dying')).toBeNull();
    await queue.close();
  });

  test('a heartbeat lists at most 100 running job ids, with the true count beside them', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const running = Array.from({ length: 150 }, (_, i) => `job-${i}`);
    await sendHeartbeat(queue.partitions[0]!.ctx, beat('w-busy', { running, concurrency: 150 }));
    const [listed] = await queue.workers();
    expect(listed?.running).toEqual(running.slice(0, 100));
    expect(listed?.runningCount).toBe(150);
    await queue.close();
  });

  test('leaving takes the worker out at once, and leaving again changes nothing more', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ctx = queue.partitions[0]!.ctx;
    await sendHeartbeat(ctx, beat('w-1'));
    await sendHeartbeat(ctx, beat('w-2'));
    expect(await leaveRegistry(ctx, 'w-1')).toBe(true);
    expect((await queue.workers()).map((worker) => worker.id)).toEqual(['w-2']);
    expect(await redis.exists(queueKeys(queueName).worker('w-1'))).toBe(0);
    expect(await leaveRegistry(ctx, 'w-1')).toBe(false);
    expect((await queue.workers()).map((worker) => worker.id)).toEqual(['w-2']);
    await queue.close();
  });

  test('the registry holds at most WORKERS_MAX members: a heartbeat past it evicts those nearest to expiry, with their hashes', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ctx = queue.partitions[0]!.ctx;
    const keys = queueKeys(queueName);
    const { nowMs } = await sendHeartbeat(ctx, beat('w-self', { ttlMs: 120_000 }));
    const filler: string[] = [];
    for (let i = 0; i < WORKERS_MAX; i += 1) filler.push(String(nowMs + 60_000 + i), `w-${i}`);
    await redis.zadd(keys.workers, ...filler);
    await redis.hset(keys.worker('w-0'), 'id', 'w-0');
    await sendHeartbeat(ctx, beat('w-self', { ttlMs: 120_000 }));
    expect(await redis.zcard(keys.workers)).toBe(WORKERS_MAX);
    expect(await redis.zscore(keys.workers, 'w-0')).toBeNull();
    expect(await redis.exists(keys.worker('w-0'))).toBe(0);
    expect(await redis.zscore(keys.workers, 'w-self')).not.toBeNull();
    await queue.close();
  });

  test('a partitioned queue keeps its registry in partition 0, and every partition reads the same workers', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 3 });
    await queue.ensureLayout();
    await sendHeartbeat(queue.partitions[0]!.ctx, beat('w-p'));
    expect(await redis.zscore(queueKeys(`${queueName}:p0`).workers, 'w-p')).not.toBeNull();
    expect((await queue.workers()).map((worker) => worker.id)).toEqual(['w-p']);
    await queue.close();
  });

  test('a bad worker id or TTL gets a typed error and writes nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ctx = queue.partitions[0]!.ctx;
    for (const [bad, field] of [[beat('has space'), 'workerId'], [beat(''), 'workerId'], [beat('w', { ttlMs: 0 }), 'heartbeatTtlMs'], [beat('w', { ttlMs: 1.5 }), 'heartbeatTtlMs']] as const) {
      const error = await sendHeartbeat(ctx, bad).catch((caught: unknown) => caught);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT'), JSON.stringify(bad)).toBe(true);
      expect((error as { field?: string }).field).toBe(field);
    }
    expect(await redis.exists(queueKeys(queueName).workers)).toBe(0);
    await queue.close();
  });

  test("lib/live-workers.lua's live_workers_for_kind counts the live workers whose kinds include the kind", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ctx = queue.partitions[0]!.ctx;
    const keys = queueKeys(queueName);
    await sendHeartbeat(ctx, beat('w-mail', { kinds: ['email'] }));
    await sendHeartbeat(ctx, beat('w-both', { kinds: ['email', 'webhook'] }));
    const dead = await sendHeartbeat(ctx, beat('w-dead', { kinds: ['thumbnail'], ttlMs: 30 }));
    const count = `${expandLua('lib/live-workers.lua')}\nreturn live_workers_for_kind(ARGV[1], ARGV[2], now_ms())`;
    const countFor = async (kind: string) => Number(await redis.eval(count, 1, keys.workers, keys.prefix, kind));
    expect(await countFor('email')).toBe(2);
    expect(await countFor('webhook')).toBe(1);
    await waitFor(async () => (await redisNow(redis, keys.workers)) > dead.aliveUntilMs, { what: 'the thumbnail worker to expire' });
    expect(await countFor('thumbnail')).toBe(0);
    expect(await countFor('nothing')).toBe(0);
    await queue.close();
  });
});
