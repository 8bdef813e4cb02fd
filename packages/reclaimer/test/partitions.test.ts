import { defineKinds, Queue } from '@jobs/core';
import { startRedisServer } from '@jobs/dev-redis';
import { redisTest as test, waitFor } from '@jobs/testing';
import { Redis } from 'ioredis';
import { describe, expect, test as plainTest } from 'vitest';
import { createReclaimer, jobsAclRules } from '../src/index.ts';
import { partitionQueues } from '../src/admin/partition-queues.ts';
import { BIN, runCli } from './cli.ts';

const kinds = defineKinds({ task: { schema: { type: 'object', properties: { n: { type: 'integer' } } } } });

describe('partitioned queues in the reclaimer and the admin CLI', () => {
  test("a reclaimer given a partitioned queue's name sweeps every partition", async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 3, visibilityMs: 50 });
    // Recorded as a producer's first enqueue would: the reclaimer finds the partitions by it.
    await queue.ensureLayout();
    for (const { name } of queue.partitions) {
      // Each partition as a queue of its own, with the same short leases.
      const partition = new Queue({ redis, queue: name, kinds, visibilityMs: 50 });
      await partition.enqueueMany([0, 1].map((n) => ({ kind: 'task' as const, payload: { n } })));
      expect(await partition.claim({ max: 2 })).toHaveLength(2);
      await partition.close();
    }
    const reclaimer = createReclaimer({ redis, queues: [queueName] });
    try {
      await waitFor(
        async () => {
          await reclaimer.runOnce();
          return (await queue.stats()).pendingDepth === 6;
        },
        { what: 'every expired lease reclaimed' },
      );
      expect(reclaimer.queues).toEqual([`${queueName}:p0`, `${queueName}:p1`, `${queueName}:p2`]);
      expect((await queue.stats()).reclaimedTotal).toBe(6);
    } finally {
      await reclaimer.stop();
      for (const partition of partitionQueues(queue)) await partition.purge();
      await queue.close();
    }
  });

  test('jobsctl stats sums the partitions; show and cancel find a job by its id; export-failed reads them all; purge removes them all', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 4 });
    const ids = (await queue.enqueueMany([0, 1, 2, 3, 4, 5, 6, 7].map((n) => ({ kind: 'task' as const, payload: { n }, options: { partitionKey: `order-${n}` } })))).map((r) => r.id);
    const env = { REDIS_URL: redisUrl };
    const stats = JSON.parse((await runCli(BIN.jobsctl, ['stats', '-q', queueName, '--json'], env)).stdout) as Record<string, unknown>;
    expect(stats).toMatchObject({ queue: queueName, partitions: 4, pendingDepth: 8, enqueuedTotal: 8 });
    const show = await runCli(BIN.jobsctl, ['show', '-q', queueName, ids[5] as string], env);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/status\s+pending/);
    expect((await runCli(BIN.jobsctl, ['cancel', '-q', queueName, ids[6] as string], env)).code).toBe(0);
    const ls = await runCli(BIN.jobsctl, ['ls', 'pending', '-q', queueName, '--json'], env);
    expect((JSON.parse(ls.stdout) as unknown[]).length).toBe(7);
    // Dead letters in two partitions: the export reads every partition's failed list.
    const failed = [];
    for (const partition of queue.partitions.slice(0, 2)) {
      const [job] = await partition.claim();
      if (job) await partition.fail(job, 'kept as evidence', { permanent: true });
      failed.push(job?.id);
    }
    const exported = await runCli(BIN.jobsctl, ['export-failed', '-q', queueName], env);
    expect(exported.code).toBe(0);
    const lines = exported.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { queue: string; id: string; last_error: string });
    expect(lines.map((line) => line.id).sort()).toEqual([...failed].sort());
    expect(lines.every((line) => line.queue === queueName && line.last_error === 'kept as evidence')).toBe(true);
    const purge = await runCli(BIN.jobsctl, ['purge', '-q', queueName, '--yes'], env);
    expect(purge.code).toBe(0);
    for (const partition of queue.partitions) {
      for (const key of [partition.keys.pending, partition.keys.stats, partition.keys.job(ids[0] as string)]) expect(await redis.exists(key)).toBe(0);
    }
    expect(await redis.exists(queue.keys.partitions)).toBe(0);
    // The purge is recorded in partition 0's trail, which it kept.
    expect((await queue.auditTrail()).entries[0]).toMatchObject({ who: { role: 'cli' }, action: 'purge', count: 1 });
    expect(await redis.exists(queue.partitions[0]!.keys.audit)).toBe(1);
    await queue.close();
  });
});

plainTest('an ACL user made with --partitions can enqueue to and claim from every partition, and nothing else', async () => {
  const server = await startRedisServer({ name: 'acl-partitions' });
  const admin = new Redis(server.url);
  try {
    await admin.acl('SETUSER', 'orders-app', 'on', '>pw', ...jobsAclRules(['orders'], { partitions: 3 }));
    const url = server.url.replace('redis://', 'redis://orders-app:pw@');
    const queue = new Queue({ redis: url, queue: 'orders', kinds, partitions: 3 });
    for (const partition of partitionQueues(queue)) {
      await partition.enqueue('task', { n: 1 });
      expect(await partition.claim()).toHaveLength(1);
    }
    const other = new Queue({ redis: url, queue: 'billing', kinds, partitions: 3 });
    expect(await other.enqueue('task', { n: 1 }).catch((e: unknown) => e)).toMatchObject({ code: 'JOBS_REDIS_NOPERM' });
    await Promise.all([queue.close(), other.close()]);
  } finally {
    admin.disconnect();
    await server.stop();
  }
});
