import { Queue } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { batchKinds, clockPast, threeBatches, type BatchQueue } from './batch-fixtures.ts';
import { startTestDashboard, TOKENS } from './dashboard-client.ts';

const open = (redis: Parameters<typeof threeBatches>[0], queue: string, partitions?: number): BatchQueue =>
  new Queue({ redis, queue, kinds: batchKinds, ...(partitions !== undefined && { partitions }) }) as BatchQueue;

describe('the dashboard API: batches', () => {
  test("a queue's batches are listed newest first with their state, counts, times and each callback's job once fired", async ({ redis, queueName }) => {
    const queue = open(redis, queueName);
    await threeBatches(redis, queue);
    const d = await startTestDashboard([queue], { credentials: { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer } });
    try {
      // A read: a viewer sees it too.
      const viewer = await d.login(TOKENS.viewer);
      const answer = await d.call('GET', `api/queues/${queueName}/batches`, { session: viewer });
      expect(answer.status).toBe(200);
      expect(answer.body.queue).toBe(queueName);
      const [c, b, a] = answer.body.batches;
      expect(answer.body.batches.map((batch: { id: string }) => batch.id)).toEqual(['sealed-c', 'empty-b', 'import-a']);
      expect(a).toEqual({
        id: 'import-a',
        state: 'open',
        total: 3,
        succeeded: 1,
        failed: 1,
        cancelled: 0,
        pending: 1,
        createdAtMs: expect.any(Number),
        sealedAtMs: null,
        finishedAtMs: null,
        callbacks: [
          { name: 'success', jobId: null },
          { name: 'death', jobId: 'batch:import-a:death' },
        ],
      });
      expect(b).toMatchObject({ state: 'finished', total: 0, pending: 0, callbacks: [{ name: 'complete', jobId: 'batch:empty-b:complete' }] });
      expect(b.finishedAtMs).toBeGreaterThanOrEqual(b.createdAtMs);
      expect(c).toMatchObject({ state: 'sealed', total: 1, pending: 1, finishedAtMs: null, callbacks: [] });
      expect(c.sealedAtMs).toBeGreaterThanOrEqual(c.createdAtMs);
      expect(c.createdAtMs).toBeGreaterThan(b.createdAtMs);
      expect(b.createdAtMs).toBeGreaterThan(a.createdAtMs);
      // The fired callback's id is a job the detail route opens.
      const death = await d.call('GET', `api/queues/${queueName}/jobs/${encodeURIComponent('batch:import-a:death')}`, { session: viewer });
      expect(death.body.job).toMatchObject({ kind: 'report', status: 'pending' });
      // `limit` takes the newest.
      expect((await d.call('GET', `api/queues/${queueName}/batches?limit=1`, { session: viewer })).body.batches.map((batch: { id: string }) => batch.id)).toEqual(['sealed-c']);
    } finally {
      await d.close();
      await queue.close();
    }
  });

  test('a queue with no batch answers an empty list; an unknown queue 404 no_queue; a bad limit 400 bad_query', async ({ redis, queueName }) => {
    const queue = open(redis, queueName);
    await queue.enqueue('email', { to: 'plain@example.com' });
    const d = await startTestDashboard([queue]);
    try {
      expect(await d.call('GET', `api/queues/${queueName}/batches`)).toMatchObject({ status: 200, body: { queue: queueName, batches: [] } });
      const unknown = await d.call('GET', 'api/queues/no-such-queue/batches');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('no_queue');
      for (const limit of ['0', '1001', '-1', '1.5', 'ten']) {
        const bad = await d.call('GET', `api/queues/${queueName}/batches?limit=${limit}`);
        expect(bad.status, limit).toBe(400);
        expect(bad.body.error.code, limit).toBe('bad_query');
      }
    } finally {
      await d.close();
      await queue.close();
    }
  });

  test("a partitioned queue's batches of every partition are listed together, the newest `limit` of them all", async ({ redis, queueName }) => {
    const queue = open(redis, queueName, 4);
    const ids = ['p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6'];
    let last = 0;
    for (const id of ids) {
      await clockPast(redis, last);
      last = (await queue.batch({ id }).seal()).createdAtMs;
    }
    // The ids spread over more than one partition: the list merges them.
    const perPartition = await Promise.all(queue.partitions.map((partition) => redis.zcard(partition.ctx.keys.batches)));
    expect(perPartition.filter((n) => n > 0).length).toBeGreaterThan(1);
    const d = await startTestDashboard([queue]);
    try {
      const all = await d.call('GET', `api/queues/${queueName}/batches`);
      expect(all.body.batches.map((batch: { id: string }) => batch.id).sort()).toEqual(ids);
      expect(all.body.batches.every((batch: { state: string }) => batch.state === 'finished')).toBe(true);
      expect(all.body.batches.map((batch: { id: string }) => batch.id)).toEqual([...ids].reverse());
      const two = await d.call('GET', `api/queues/${queueName}/batches?limit=2`);
      expect(two.body.batches.map((batch: { id: string }) => batch.id)).toEqual(['p-6', 'p-5']);
    } finally {
      await d.close();
      await queue.close();
    }
  });
});
