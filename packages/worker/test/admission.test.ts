import { createProducer } from '@jobs/producer';
import { redisNodes, redisTest as test, waitFor, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, type Worker } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

/**
 * Resolves once a connection named `name` is blocked in BLMOVE (on any master). With jobs on
 * pending, a worker blocked there is waiting on its queue's resume list.
 */
async function blockedInBlmove(redis: TestRedis, name: string): Promise<void> {
  const nodes = await redisNodes(redis);
  const blocked = async (node: TestRedis): Promise<boolean> =>
    String(await node.client('LIST')).split('\n').some((line: string) => line.includes(`name=${name} `) && line.includes('cmd=blmove'));
  await waitFor(async () => (await Promise.all(nodes.map(blocked))).includes(true), { what: `${name} blocked in BLMOVE` });
}

describe('worker admission (priorities, pauses, expiry)', () => {
  test('ctx.progress reaches getJob and waitForResult onProgress, in order', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      handlers: {
        ...okHandlers,
        email: async (_payload, ctx) => {
          await ctx.progress({ step: 1 });
          await ctx.progress({ step: 2 });
          await gate;
          return 'sent';
        },
      },
    });
    const id = await producer.enqueue('email', { recipient: 'a@example.com' });
    const heard: unknown[] = [];
    const result = producer.waitForResult(id, { timeoutMs: 20_000, onProgress: (progress) => heard.push(progress) });
    await waitFor(async () => JSON.stringify((await producer.getJob(id))?.progress) === '{"step":2}', { what: 'progress stored' });
    await expect.poll(() => heard.at(-1)).toEqual({ step: 2 });
    release();
    expect(await result).toBe('sent');
    // Each value once, in the order reported (the wait may begin after step 1).
    expect([[{ step: 1 }, { step: 2 }], [{ step: 2 }]]).toContainEqual(heard);
    await worker.close();
    await producer.close();
  });

  test('once pause() resolves no worker starts a job, a blocked one included, across a worker restart; resume starts them promptly', async ({ redis, redisUrl, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const started: string[] = [];
    const handlers = { ...okHandlers, email: async (_payload: unknown, ctx: { id: string }) => (started.push(ctx.id), 'ok') };
    const name = `jobs:worker:${queueName}`;
    let worker: Worker<unknown> = createWorker({ redis: redisUrl, queue: queueName, kinds, concurrency: 4, handlers }) as unknown as Worker<unknown>;
    await worker.ready();
    await blockedInBlmove(redis, name);
    await producer.pause();
    const ids = (await producer.enqueueMany(Array.from({ length: 5 }, (_, n) => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', n } })))).map((r) => r.id);
    // The pushes woke the blocked claim; it took nothing and blocks again (on the resume list).
    await blockedInBlmove(redis, name);
    expect(started).toEqual([]);
    await worker.close();

    worker = createWorker({ redis: redisUrl, queue: queueName, kinds, concurrency: 4, handlers }) as unknown as Worker<unknown>;
    await worker.ready();
    await blockedInBlmove(redis, name);
    expect(started).toEqual([]);
    expect(await producer.stats()).toMatchObject({ paused: true, pendingDepth: 5 });

    await producer.resume();
    await waitFor(() => started.length === 5, { what: 'the five jobs to start after resume', timeoutMs: 4_000 });
    expect(started.sort()).toEqual(ids.sort());
    await worker.close();
    await producer.close();
  });

  test('a paused kind waits while the other kinds run; resuming it runs its jobs', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    await producer.pause({ kind: 'webhook' });
    const worker = createWorker({ redis, queue: queueName, kinds, concurrency: 2, handlers: okHandlers });
    const hook = await producer.enqueue('webhook', { url: 'https://example.com/hook' });
    const mail = await producer.enqueue('email', { recipient: 'a@example.com' });
    await producer.waitForResult(mail, { timeoutMs: 10_000 });
    expect(await producer.stats()).toMatchObject({ pausedKinds: ['webhook'], parkedDepth: 1 });
    expect((await producer.getJob(hook))?.status).toBe('pending');
    await producer.resume({ kind: 'webhook' });
    await producer.waitForResult(hook, { timeoutMs: 10_000 });
    await worker.close();
    await producer.close();
  });
});
