import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, Queue, type ClaimedJob, type QueueOptions, type RedisClient } from '../src/index.ts';
import { kinds } from './fixtures.ts';

function open(redis: RedisClient, queueName: string, options: QueueOptions = {}) {
  return new Queue({ redis, queue: queueName, kinds, ...options });
}

async function claimOne(queue: ReturnType<typeof open>): Promise<ClaimedJob> {
  const [job] = await queue.claim();
  if (job === undefined) throw new Error('nothing to claim');
  return job;
}

describe('job logs', () => {
  test('lines appended under a live claim are read back oldest first, with their time and attempt', async ({ redis, queueName }) => {
    const queue = open(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const job = await claimOne(queue);
    await queue.appendLogs(job, [{ atMs: 1_000, line: 'connecting' }, { atMs: 1_001, line: 'sent <b>hi</b>' }]);
    await queue.appendLogs(job, [{ atMs: 1_002, line: 'done' }]);
    expect(await queue.logs(id)).toEqual({
      jobId: id,
      lines: [
        { atMs: 1_000, attempt: 1, line: 'connecting' },
        { atMs: 1_001, attempt: 1, line: 'sent <b>hi</b>' },
        { atMs: 1_002, attempt: 1, line: 'done' },
      ],
      trimmed: 0,
    });
    expect((await queue.logs(id, { limit: 1 }))?.lines.map((line) => line.line)).toEqual(['done']);
    expect(await queue.logs('no-such-job')).toBeNull();
    await queue.close();
  });

  test("a lost claim's lines are refused with JOBS_LOST_CLAIM and nothing is written", async ({ redis, queueName }) => {
    const queue = open(redis, queueName, { visibilityMs: 30 });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const stale = await claimOne(queue);
    await waitFor(async () => (await queue.reclaimStuck()).reclaimed.includes(id), { timeoutMs: 10_000 });
    const error = await queue.appendLogs(stale, [{ atMs: 1, line: 'too late' }]).catch((caught: unknown) => caught);
    expect(isJobsError(error, 'JOBS_LOST_CLAIM')).toBe(true);
    expect(await redis.exists(queue.keys.jobLogs(id))).toBe(0);
    expect((await queue.logs(id))?.lines).toEqual([]);
    // The new claim's lines are taken.
    const fresh = await claimOne(queue);
    await queue.appendLogs(fresh, [{ atMs: 2, line: 'second attempt' }]);
    expect((await queue.logs(id))?.lines).toEqual([{ atMs: 2, attempt: 2, line: 'second attempt' }]);
    await queue.close();
  });

  test('only the newest `lines` are kept, the rest counted as trimmed, and each line is cut to lineBytes', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, { jobLogs: { lines: 3, lineBytes: 16 } });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const job = await claimOne(queue);
    await queue.appendLogs(job, [1, 2].map((n) => ({ atMs: n, line: `line ${n}` })));
    // More in one batch than are kept: the oldest are not even sent.
    await queue.appendLogs(job, [3, 4, 5, 6].map((n) => ({ atMs: n, line: `line ${n}` })));
    await queue.appendLogs(job, [{ atMs: 7, line: 'é'.repeat(20) }]);
    const logs = await queue.logs(id);
    expect(logs?.lines.map((line) => line.line)).toEqual(['line 5', 'line 6', 'é'.repeat(8)]);
    expect(logs?.trimmed).toBe(4);
    await queue.close();
  });

  test('with jobLogs false nothing is stored', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, { jobLogs: false });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    await queue.appendLogs(await claimOne(queue), [{ atMs: 1, line: 'dropped' }]);
    expect(await redis.exists(queue.keys.jobLogs(id))).toBe(0);
    expect(await queue.logs(id)).toEqual({ jobId: id, lines: [], trimmed: 0 });
    await queue.close();
  });
});
