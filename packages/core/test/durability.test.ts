import { startRedisServer, type RedisServer } from '@jobs/dev-redis';
import { waitFor } from '@jobs/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isJobsError, Queue, type ClaimedJob } from '../src/index.ts';
import { kinds } from './fixtures.ts';

// A primary with one replica of its own: durable mode is about what the replica holds.
let primary: RedisServer;
let replica: RedisServer;
let replicaClient: Redis;

beforeAll(async () => {
  primary = await startRedisServer({ name: 'durable-primary' });
  replica = await startRedisServer({ name: 'durable-replica', args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  replicaClient = new Redis(replica.url);
  await waitFor(async () => /master_link_status:up/.test(await replicaClient.info('replication')), { what: 'replica in sync' });
}, 30_000);

afterAll(async () => {
  replicaClient?.disconnect();
  await replica?.stop();
  await primary?.stop();
});

/** Freezes the replica process, so it acknowledges nothing, for the span of `during`. */
async function withReplicaFrozen<T>(during: () => Promise<T>): Promise<T> {
  process.kill(replica.pid, 'SIGSTOP');
  try {
    return await during();
  } finally {
    process.kill(replica.pid, 'SIGCONT');
  }
}

describe('durable mode (WAIT for replicas)', () => {
  test('an acknowledged enqueue and completion are already on the replica', async () => {
    const queue = new Queue({ redis: primary.url, queue: 'durable-ok', kinds, durability: { replicas: 1, timeoutMs: 2_000 } });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    // Read from the replica right after the acknowledgement: no wait, no poll.
    expect(await replicaClient.hget(`queue:{durable-ok}:job:${id}`, 'status')).toBe('pending');
    const [job] = (await queue.claim()) as [ClaimedJob];
    const { outcomes, notReplicated } = await queue.completeManyAndClaim([{ job, result: 'done' }], { max: 1 });
    expect(outcomes).toEqual([{ status: 'completed' }]);
    expect(notReplicated).toBeUndefined();
    expect(await replicaClient.hget(`queue:{durable-ok}:job:${id}`, 'status')).toBe('completed');
    await queue.close();
  });

  test('with the replica frozen, an enqueue reports JOBS_NOT_REPLICATED naming the job it wrote on the primary', async () => {
    const queue = new Queue({ redis: primary.url, queue: 'durable-frozen', kinds, durability: { replicas: 1, timeoutMs: 100 } });
    const error = await withReplicaFrozen(() => queue.enqueue('email', { recipient: 'a@example.com' }).catch((e: unknown) => e));
    expect(isJobsError(error, 'JOBS_NOT_REPLICATED')).toBe(true);
    if (!isJobsError(error, 'JOBS_NOT_REPLICATED')) return;
    expect(error).toMatchObject({ acknowledged: 0, required: 1, field: 'durability.replicas' });
    expect(error.ids).toHaveLength(1);
    expect(await queue.getJob(error.ids[0] as string)).toMatchObject({ status: 'pending' });
    await queue.close();
  });

  test('a script the server forgot (SCRIPT FLUSH) is sent again inside the pipeline, so WAIT still guards it', async () => {
    const queue = new Queue({ redis: primary.url, queue: 'durable-flushed', kinds, durability: { replicas: 1, timeoutMs: 100 } });
    await queue.enqueue('email', { recipient: 'warm@example.com' });
    const admin = new Redis(primary.url);
    await admin.script('FLUSH');
    const error = await withReplicaFrozen(() => queue.enqueue('email', { recipient: 'a@example.com' }).catch((e: unknown) => e));
    expect(error).toMatchObject({ code: 'JOBS_NOT_REPLICATED', acknowledged: 0 });
    admin.disconnect();
    await queue.close();
  });

  test('a deduplicated enqueue, too, is acknowledged only once a replica confirms the call', async () => {
    const queue = new Queue({ redis: primary.url, queue: 'durable-idem', kinds, durability: { replicas: 1, timeoutMs: 100 } });
    const first = await queue.enqueue('email', { recipient: 'a@example.com' }, { idempotencyKey: 'k1' });
    const error = await withReplicaFrozen(() => queue.enqueue('email', { recipient: 'a@example.com' }, { idempotencyKey: 'k1' }).catch((e: unknown) => e));
    expect(error).toMatchObject({ code: 'JOBS_NOT_REPLICATED', ids: [first] });
    expect(await queue.enqueue('email', { recipient: 'a@example.com' }, { idempotencyKey: 'k1' })).toBe(first);
    await queue.close();
  });

  test('with the replica frozen, completions are done and their claims returned, the shortfall reported', async () => {
    const queue = new Queue({ redis: primary.url, queue: 'durable-batch', kinds, durability: { replicas: 1, timeoutMs: 100 } });
    await queue.enqueueMany([1, 2].map((n) => ({ kind: 'email' as const, payload: { recipient: `${n}@example.com` } })));
    const [job] = (await queue.claim()) as [ClaimedJob];
    const result = await withReplicaFrozen(() => queue.completeManyAndClaim([{ job, result: null }], { max: 1 }));
    expect(result.outcomes).toEqual([{ status: 'completed' }]);
    expect(result.next).toHaveLength(1);
    expect(result.notReplicated).toMatchObject({ code: 'JOBS_NOT_REPLICATED', acknowledged: 0 });
    await queue.close();
  });

  test('with the replica frozen, a completion that claims nothing is done and the shortfall reported', async () => {
    const queue = new Queue({ redis: primary.url, queue: 'durable-alone', kinds, durability: { replicas: 1, timeoutMs: 100 } });
    await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    const result = await withReplicaFrozen(() => queue.completeManyAndClaim([{ job, result: null }], { max: 0 }));
    expect(result.outcomes).toEqual([{ status: 'completed' }]);
    expect(result.next).toEqual([]);
    expect(result.notReplicated).toMatchObject({ code: 'JOBS_NOT_REPLICATED', acknowledged: 0 });
    await queue.close();
  });

  test('durability options are checked', () => {
    expect(() => new Queue({ redis: primary.url, queue: 'x', kinds, durability: { replicas: -1 } })).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'options.durability.replicas' }));
    expect(() => new Queue({ redis: primary.url, queue: 'x', kinds, durability: { replicas: 1, timeoutMs: 0 } })).toThrow(expect.objectContaining({ field: 'options.durability.timeoutMs' }));
  });
});
