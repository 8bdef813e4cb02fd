import { redisTest as test, waitFor, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, queueKeys, type ClaimedJob, type PayloadTypesOf, type Queue } from '../src/index.ts';
import { openQueue, type kinds } from './fixtures.ts';

type Q = Queue<PayloadTypesOf<typeof kinds>>;

const callbacks = {
  onSuccess: { kind: 'webhook', payload: { url: 'https://example.com/success' } },
  onComplete: { kind: 'webhook', payload: { url: 'https://example.com/complete' } },
  onDeath: { kind: 'webhook', payload: { url: 'https://example.com/death' } },
} as const;

const emails = (n: number) => Array.from({ length: n }, (_, i) => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', n: i } }));

/** Claims and settles every waiting job of kind email: completes them, or fails those `fail` picks for good. */
async function runEmails(queue: Q, fail: (job: ClaimedJob) => boolean = () => false): Promise<void> {
  for (;;) {
    const claimed = await queue.claim({ max: 100 });
    // A callback claimed along the way goes back, for the test to read.
    const callbacks = claimed.filter((job) => job.kind !== 'email');
    if (callbacks.length > 0) await queue.release(callbacks);
    const jobs = claimed.filter((job) => job.kind === 'email');
    if (jobs.length === 0) return;
    for (const job of jobs) {
      if (fail(job)) await queue.fail(job, new Error('bounced'), { permanent: true });
      else await queue.complete(job, 'sent');
    }
  }
}

/** The callback jobs of the batches in `ids` that exist (wherever they wait), by id. */
async function callbackIds(redis: TestRedis, queueName: string, ids = ['b1', 'b2', 'b3', 'b4', 'b5', 'empty']): Promise<string[]> {
  const names = ids.flatMap((id) => ['success', 'complete', 'death'].map((cb) => `batch:${id}:${cb}`));
  const found = await Promise.all(names.map(async (name) => ((await redis.exists(queueKeys(queueName).job(name))) === 1 ? name : undefined)));
  return found.filter((name): name is string => name !== undefined).sort();
}

describe('batches', () => {
  test('once sealed and every job completed, onSuccess and onComplete are enqueued once each, with fixed ids', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const batch = queue.batch({ id: 'b1', ...callbacks });
    expect(await batch.state()).toBeNull();
    const added = await batch.add(emails(5));
    expect(added.every((r) => r.created)).toBe(true);
    expect(await batch.state()).toMatchObject({ id: 'b1', total: 5, pending: 5, sealed: false, finished: false });
    await runEmails(queue);
    // Not sealed yet: more jobs may come, so nothing fires.
    expect(await callbackIds(redis, queueName)).toEqual([]);
    const state = await batch.seal();
    expect(state).toMatchObject({ total: 5, succeeded: 5, pending: 0, sealed: true, finished: true, callbacks: { success: 'batch:b1:success', complete: 'batch:b1:complete', death: null } });
    expect(await callbackIds(redis, queueName)).toEqual(['batch:b1:complete', 'batch:b1:success']);
    // Sealing again (a resend) enqueues nothing more.
    await batch.seal();
    expect(await callbackIds(redis, queueName)).toEqual(['batch:b1:complete', 'batch:b1:success']);
    const callback = await queue.getJob('batch:b1:success');
    expect(callback).toMatchObject({ kind: 'webhook', status: 'pending', payload: { url: 'https://example.com/success' } });
    // A callback takes its kind's defaults, as an enqueue of it would (webhook: 5 attempts).
    expect(await redis.hget(queueKeys(queueName).job('batch:b1:success'), 'max_attempts')).toBe('5');
    await queue.close();
  });

  test('sealed first, the last job to end fires the callbacks, in the script that ends it', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const batch = queue.batch({ id: 'b2', ...callbacks });
    await batch.add(emails(3));
    expect(await batch.seal()).toMatchObject({ sealed: true, finished: false, pending: 3 });
    const jobs = await queue.claim({ max: 3 });
    await queue.complete(jobs[0] as ClaimedJob, 1);
    await queue.complete(jobs[1] as ClaimedJob, 1);
    expect(await callbackIds(redis, queueName)).toEqual([]);
    await queue.complete(jobs[2] as ClaimedJob, 1);
    expect(await callbackIds(redis, queueName)).toEqual(['batch:b2:complete', 'batch:b2:success']);
    await queue.close();
  });

  test('the first job to fail for good fires onDeath; the batch completes without onSuccess', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const batch = queue.batch({ id: 'b3', ...callbacks });
    await batch.add(emails(4));
    await batch.seal();
    await runEmails(queue, (job) => (job.payload as { n: number }).n % 2 === 0);
    expect(await callbackIds(redis, queueName)).toEqual(['batch:b3:complete', 'batch:b3:death']);
    expect(await queue.batchState('b3')).toMatchObject({ total: 4, succeeded: 2, failed: 2, pending: 0, finished: true, callbacks: { success: null, death: 'batch:b3:death' } });
    await queue.close();
  });

  test('a cancelled or removed job counts as cancelled, and the batch still completes', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const batch = queue.batch({ id: 'b4', onComplete: callbacks.onComplete });
    const [a, b] = await batch.add(emails(3));
    await batch.seal();
    expect(await queue.cancel((a as { id: string }).id)).toEqual({ cancelled: true, wasRunning: false });
    expect(await queue.remove((b as { id: string }).id)).toEqual({ removed: true });
    await runEmails(queue);
    expect(await queue.batchState('b4')).toMatchObject({ succeeded: 1, cancelled: 2, finished: true });
    expect(await callbackIds(redis, queueName)).toEqual(['batch:b4:complete']);
    await queue.close();
  });

  test('a job that dies with its worker and is retried counts once, when it finally ends', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 30 });
    const batch = queue.batch({ id: 'b5', onSuccess: callbacks.onSuccess });
    await batch.add(emails(1));
    await batch.seal();
    const [lost] = (await queue.claim()) as [ClaimedJob];
    await waitFor(async () => {
      const [s, us] = await redis.time();
      return Number(s) * 1000 + Number(us) / 1000 > lost.leaseExpiresAtMs;
    }, { what: 'the lease to expire' });
    expect((await queue.reclaimStuck()).reclaimed).toEqual([lost.id]);
    // The dead worker's late completion is fenced off: it counts nothing.
    await expect(queue.complete(lost, 'late')).rejects.toSatisfy((e) => isJobsError(e));
    expect(await queue.batchState('b5')).toMatchObject({ succeeded: 0, pending: 1 });
    await runEmails(queue);
    expect(await queue.batchState('b5')).toMatchObject({ succeeded: 1, pending: 0, finished: true });
    expect(await callbackIds(redis, queueName)).toEqual(['batch:b5:success']);
    await queue.close();
  });

  test('an empty batch sealed finishes at once', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    expect(await queue.batch({ id: 'empty', ...callbacks }).seal()).toMatchObject({ total: 0, finished: true });
    expect(await callbackIds(redis, queueName)).toEqual(['batch:empty:complete', 'batch:empty:success']);
    await queue.close();
  });

  test('10,000 jobs go in calls of 1,000 and all count', { timeout: 120_000 }, async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const batch = queue.batch({ id: 'big', onSuccess: callbacks.onSuccess });
    const added = await batch.add(emails(10_000));
    expect(new Set(added.map((r) => r.id)).size).toBe(10_000);
    expect(await batch.seal()).toMatchObject({ total: 10_000, pending: 10_000 });
    await runEmails(queue);
    expect(await queue.batchState('big')).toMatchObject({ succeeded: 10_000, finished: true });
    await queue.close();
  });

  test('adding to a sealed batch throws JOBS_BATCH_CLOSED and writes nothing; bad input throws before anything is written', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const batch = queue.batch({ id: 'closed' });
    await batch.seal();
    const closed = await batch.add(emails(1)).catch((e: unknown) => e);
    expect(isJobsError(closed, 'JOBS_BATCH_CLOSED')).toBe(true);
    expect(await redis.llen(queueKeys(queueName).pending)).toBe(0);
    const open = queue.batch({ id: 'open' });
    const bad = await open.add([...emails(2), { kind: 'email', payload: { recipient: 'not an address' } }]).catch((e: unknown) => e);
    expect(isJobsError(bad, 'JOBS_VALIDATION')).toBe(true);
    expect(await redis.llen(queueKeys(queueName).pending)).toBe(0);
    expect(() => queue.batch({ id: 'bad id!' })).toThrow(/batch id/);
    expect(() => queue.batch({ onSuccess: { kind: 'email', payload: { recipient: 'nope' } } })).toThrow(/recipient|format/);
    expect(() => queue.batch({ when: 1 } as never)).toThrow(/when/);
    await expect(queue.batches({ newest: true } as never)).rejects.toThrow(/newest/);
    await queue.close();
  });

  test('a batch id reopened with other callbacks is refused', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.batch({ id: 'same', onSuccess: callbacks.onSuccess }).add(emails(1));
    // The same callbacks again (another process of the same producer): accepted.
    await queue.batch({ id: 'same', onSuccess: callbacks.onSuccess }).add(emails(1));
    const other = await queue.batch({ id: 'same', onComplete: callbacks.onComplete }).add(emails(1)).catch((e: unknown) => e);
    expect(isJobsError(other, 'JOBS_BATCH_CLOSED')).toBe(true);
    expect(await queue.batchState('same')).toMatchObject({ total: 2 });
    expect((await queue.batches()).map((b) => b.id)).toEqual(['same']);
    // A member no batch could have, written by hand, is skipped.
    await redis.zadd(queueKeys(queueName).batches, '+inf', 'not a batch id!');
    expect((await queue.batches()).map((b) => b.id)).toEqual(['same']);
    await queue.close();
  });
});
