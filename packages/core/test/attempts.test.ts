import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { ERROR_CAUSE_DEPTH, Queue, type ClaimedJob, type QueueOptions, type RedisClient } from '../src/index.ts';
import { kinds } from './fixtures.ts';

function open(redis: RedisClient, queueName: string, workerId: string, options: QueueOptions = {}) {
  return new Queue({ redis, queue: queueName, kinds, workerId, backoff: { type: 'fixed', delayMs: 0 }, ...options });
}

async function claimOne(queue: ReturnType<typeof open>): Promise<ClaimedJob> {
  const [job] = await queue.claim();
  if (job === undefined) throw new Error('nothing to claim');
  return job;
}

/** An error with a code, a stack and a cause chain deeper than the form keeps. */
function chainedError(attempt: number): Error {
  const root = new TypeError(`socket closed (${attempt})`);
  const middle = new Error('connection lost', { cause: root });
  const upper = new Error('smtp session failed', { cause: middle });
  const top = new Error(`send failed on attempt ${attempt}`, { cause: new Error('retry budget', { cause: upper }) });
  return Object.assign(top, { code: 'SMTP_DOWN' });
}

describe('attempt history', () => {
  test('a handler error with a cause chain, retried then dead-lettered: each attempt has its outcome, error, stack and worker', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, 'worker-a', { maxAttempts: 2 });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    expect(await queue.fail(await claimOne(queue), chainedError(1))).toBe('retried');
    expect(await queue.fail(await claimOne(queue), chainedError(2))).toBe('failed');

    const history = await queue.attempts(id);
    expect(history?.trimmed).toBe(0);
    expect(history?.entries.map((entry) => [entry.attempt, entry.outcome, entry.workerId])).toEqual([
      [1, 'retried', 'worker-a'],
      [2, 'failed', 'worker-a'],
    ]);
    for (const entry of history?.entries ?? []) {
      expect(entry.claimedAtMs).toBeGreaterThan(0);
      expect(entry.endedAtMs).toBeGreaterThanOrEqual(entry.claimedAtMs as number);
      expect(entry.durationMs).toBe((entry.endedAtMs as number) - (entry.claimedAtMs as number));
      expect(entry.error?.code).toBe('SMTP_DOWN');
      expect(entry.error?.message).toBe(`send failed on attempt ${entry.attempt}`);
      expect(entry.error?.stack).toContain('chainedError');
      expect(entry.error?.cause?.message).toBe('retry budget');
      expect(entry.error?.cause?.cause?.cause?.message).toBe('connection lost');
      // ERROR_CAUSE_DEPTH causes deep: the root TypeError is left out.
      expect(ERROR_CAUSE_DEPTH).toBe(3);
      expect(entry.error?.cause?.cause?.cause?.cause).toBeUndefined();
    }
    // The hash keeps last_error a plain message, for recipe clients; the form beside it.
    expect(await redis.hget(queue.keys.job(id), 'last_error')).toBe('send failed on attempt 2');
    const job = await queue.getJob(id);
    expect(job?.error).toEqual(history?.entries[1]?.error);
    await queue.close();
  });

  test('a lease the sweeper reclaims is recorded with LEASE_EXPIRED, and its claimer comes from the event log', async ({ redis, queueName }) => {
    const worker = open(redis, queueName, 'worker-b', { visibilityMs: 50, eventLog: true });
    const sweeper = open(redis, queueName, 'sweeper', { visibilityMs: 50, eventLog: true });
    const id = await worker.enqueue('email', { recipient: 'a@example.com' });
    await claimOne(worker);
    await waitFor(async () => (await sweeper.reclaimStuck()).reclaimed.includes(id), { timeoutMs: 10_000 });
    await worker.complete(await claimOne(worker), { sent: true });

    const history = await worker.attempts(id);
    expect(history?.entries.map((entry) => [entry.attempt, entry.outcome, entry.workerId, entry.error?.code])).toEqual([
      [1, 'reclaimed', 'worker-b', 'LEASE_EXPIRED'],
      [2, 'completed', 'worker-b', undefined],
    ]);
    const completed = history?.entries[1];
    expect(completed?.endedAtMs).toBe((await worker.getJob(id))?.completedAtMs);
    expect(completed?.durationMs).toBe((completed?.endedAtMs as number) - (completed?.claimedAtMs as number));
    await worker.close();
    await sweeper.close();
  });

  test('a running attempt shows as running; a released and a rate-limited attempt keep their outcomes', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, 'worker-c');
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    await queue.release([await claimOne(queue)]);
    await queue.rateLimited(await claimOne(queue), 1, 'HTTP 429');
    await waitFor(async () => (await queue.claim()).length === 1, { timeoutMs: 10_000 });
    const history = await queue.attempts(id);
    expect(history?.entries.map((entry) => [entry.attempt, entry.outcome, entry.workerId])).toEqual([
      [1, 'released', 'worker-c'],
      [1, 'rate_limited', 'worker-c'],
      [1, 'running', undefined],
    ]);
    expect(history?.entries[1]?.error).toEqual({ code: 'RATE_LIMITED', message: 'HTTP 429' });
    expect(history?.entries[2]?.endedAtMs).toBeNull();
    await queue.close();
  });

  test("a recipe client's bare last_error reads as { message }, and a stored form does not describe a later recipe failure", async ({ redis, queueName }) => {
    const queue = open(redis, queueName, 'worker-d', { maxAttempts: 5 });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    await queue.fail(await claimOne(queue), chainedError(1));
    // A recipe worker in another language claims it later and fails it its own way: the recipe's fields only.
    await redis.hset(queue.keys.job(id), { status: 'failed', attempts: '2', last_error: 'KeyError: recipient', last_error_at_ms: String(Date.now() + 60_000) });
    expect((await queue.getJob(id))?.error).toEqual({ message: 'KeyError: recipient' });
    const history = await queue.attempts(id);
    expect(history?.entries.map((entry) => [entry.attempt, entry.outcome, entry.error?.message])).toEqual([
      [1, 'retried', 'send failed on attempt 1'],
      [2, 'failed', 'KeyError: recipient'],
    ]);
    // A hash a recipe client made from scratch.
    await redis.hset(queue.keys.job('recipe-1'), { id: 'recipe-1', payload: '{"kind":"email"}', status: 'failed', attempts: '1', last_error: 'boom' });
    expect((await queue.getJob('recipe-1'))?.error).toEqual({ message: 'boom' });
    expect((await queue.attempts('recipe-1'))?.entries).toEqual([{ attempt: 1, claimedAtMs: null, endedAtMs: null, durationMs: null, outcome: 'failed', error: { message: 'boom' } }]);
    await redis.del(queue.keys.job('recipe-1'));
    await queue.close();
  });

  test('only the newest `keep` attempts stay, the older ones counted as trimmed, each stack cut to stackBytes', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, 'worker-e', { maxAttempts: 10, attemptHistory: { keep: 2, stackBytes: 120 } });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    for (let attempt = 1; attempt <= 5; attempt += 1) await queue.fail(await claimOne(queue), chainedError(attempt));
    const history = await queue.attempts(id);
    expect(history?.trimmed).toBe(3);
    expect(history?.entries.map((entry) => entry.attempt)).toEqual([4, 5]);
    for (const entry of history?.entries ?? []) {
      expect(Buffer.byteLength(entry.error?.stack ?? '')).toBeLessThanOrEqual(120);
      expect(Buffer.byteLength(entry.error?.cause?.stack ?? '')).toBeLessThanOrEqual(120);
      expect(entry.error?.stack?.startsWith('Error: send failed')).toBe(true);
    }
    expect(await redis.llen(queue.keys.jobAttempts(id))).toBe(2);
    await queue.close();
  });

  test('with attemptHistory false no attempt is recorded, and the last error keeps its form without a stack', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, 'worker-f', { maxAttempts: 3, attemptHistory: false });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    await queue.fail(await claimOne(queue), chainedError(1));
    expect(await redis.exists(queue.keys.jobAttempts(id))).toBe(0);
    const job = await queue.getJob(id);
    expect(job?.error?.code).toBe('SMTP_DOWN');
    expect(job?.error?.stack).toBeUndefined();
    expect((await queue.attempts(id))?.entries.map((entry) => entry.outcome)).toEqual(['retried']);
    // Completed at the next attempt: its error goes, JSON form included.
    await queue.complete(await claimOne(queue), 'ok');
    expect(await redis.hmget(queue.keys.job(id), 'last_error', 'last_error_json')).toEqual([null, null]);
    expect((await queue.getJob(id))?.error).toBeUndefined();
    await queue.close();
  });

  test('a job that completes at its first attempt gets no trail: the success path writes nothing more', async ({ redis, queueName }) => {
    const queue = open(redis, queueName, 'worker-g');
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    await queue.complete(await claimOne(queue), 'ok');
    expect(await redis.exists(queue.keys.jobAttempts(id), queue.keys.jobLogs(id))).toBe(0);
    expect(await redis.hget(queue.keys.job(id), 'trail')).toBeNull();
    expect((await queue.attempts(id))?.entries.map((entry) => entry.outcome)).toEqual(['completed']);
    expect(await queue.attempts('no-such-job')).toBeNull();
    await queue.close();
  });
});
