import { Queue, queueKeys } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds } from '../src/index.ts';
import { startChildWorker, type ChildWorker } from './child-worker.ts';

// Enough attempts for a job killed in every round and reclaimed after each: the test is about
// counting each job once, not about a job that runs out of attempts (that fails the batch).
const kinds = defineKinds({
  slow: { schema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] }, maxAttempts: 10 },
});

describe('batch callbacks under worker kills', () => {
  test('with workers SIGKILLed mid-job, every job counts once and each callback job is enqueued and completed exactly once', async ({ redisUrl, redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const k = queueKeys(queueName);
    const batch = producer.batch({ id: 'chaos', onSuccess: { kind: 'slow', payload: { ms: 1 } }, onComplete: { kind: 'slow', payload: { ms: 2 } } });
    await batch.add(Array.from({ length: 120 }, (_, n) => ({ kind: 'slow', payload: { ms: 50 + (n % 5) * 25 } })));
    await batch.seal();
    // Three rounds: two workers start, take jobs, and are SIGKILLed holding some.
    const env = { REDIS_URL: redisUrl, QUEUE: queueName, VISIBILITY_MS: '300', CONCURRENCY: '4' };
    for (let round = 0; round < 3; round += 1) {
      const children: ChildWorker[] = await Promise.all([startChildWorker(env), startChildWorker(env)]);
      const started = (): number => children.reduce((sum, child) => sum + (child.output().match(/^started /gm)?.length ?? 0), 0);
      await waitFor(() => started() >= 4, { timeoutMs: 30_000, what: 'the round\'s workers to start jobs' });
      for (const child of children) child.process.kill('SIGKILL');
      await Promise.all(children.map((child) => child.exited));
    }
    // A survivor sweeps the dead workers' jobs back and runs everything left, callbacks too.
    const survivor = createWorker({ redis, queue: queueName, kinds, concurrency: 8, visibilityMs: 300, reclaimIntervalMs: 100, handlers: { slow: ({ ms }) => ({ ms }) } });
    // The callbacks exist once the last job ended: enqueued by the script that ended it.
    await waitFor(async () => (await producer.batchState('chaos'))?.finished === true, { timeoutMs: 60_000, what: 'the batch to finish' });
    expect(await producer.waitForResult('batch:chaos:success', { timeoutMs: 60_000 })).toEqual({ ms: 1 });
    expect(await producer.waitForResult('batch:chaos:complete', { timeoutMs: 60_000 })).toEqual({ ms: 2 });
    expect(await producer.batchState('chaos')).toMatchObject({ total: 120, succeeded: 120, failed: 0, pending: 0, finished: true });
    // Written once each: 120 jobs and 2 callbacks enqueued, no more, and each callback completed once.
    const queue = new Queue({ redis, queue: queueName, kinds });
    await waitFor(async () => (await queue.stats()).completedTotal === 122, { what: 'every job and both callbacks completed' });
    expect((await queue.stats()).enqueuedTotal).toBe(122);
    expect(await redis.lrange(k.completed, 0, -1)).toEqual(expect.arrayContaining(['batch:chaos:success', 'batch:chaos:complete']));
    expect((await redis.lrange(k.completed, 0, -1)).filter((id) => id.startsWith('batch:'))).toHaveLength(2);
    // The kills did land mid-job: some jobs ran more than once.
    const reruns = (await Promise.all((await redis.lrange(k.completed, 0, -1)).map((id) => redis.hget(k.job(id), 'attempts')))).filter((a) => Number(a) > 1);
    expect(reruns.length).toBeGreaterThan(0);
    await Promise.all([survivor.close(), queue.close(), producer.close()]);
  }, 120_000);
});
