import { queueKeys } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds } from '../src/index.ts';
import { startChildWorker } from './child-worker.ts';

const kinds = defineKinds({
  slow: { schema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
});

describe('dedupe keys and a SIGKILLed worker', () => {
  test('the key stays with the job its killed worker held, absorbs enqueues while it is reclaimed, and is released when it completes', async ({ redisUrl, redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const dedupe = { dedupe: { key: 'nightly', mode: 'until-done' } } as const;
    const key = queueKeys(queueName).dedupe('slow', 'nightly');
    const child = await startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, VISIBILITY_MS: '500' });
    const id = await producer.enqueue('slow', { ms: 60_000 }, dedupe);
    await child.waitForOutput(`started ${id}`);
    child.process.kill('SIGKILL');
    await child.exited;
    // Dead worker, job still processing under its lapsed lease: the key is its job's.
    const [absorbed] = await producer.enqueueMany([{ kind: 'slow', payload: { ms: 1 }, options: dedupe }]);
    expect(absorbed).toEqual({ id, created: false, heldBy: 'dedupe' });
    const survivor = createWorker({ redis, queue: queueName, kinds, visibilityMs: 500, reclaimIntervalMs: 100, handlers: { slow: () => 'rerun' } });
    expect(await producer.waitForResult(id, { timeoutMs: 15_000 })).toBe('rerun');
    expect((await producer.getJob(id))?.attempts).toBe(2);
    expect(await redis.exists(key)).toBe(0);
    const [next] = await producer.enqueueMany([{ kind: 'slow', payload: { ms: 1 }, options: dedupe }]);
    expect(next?.created).toBe(true);
    await Promise.all([survivor.close(), producer.close()]);
  });
});
