import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds } from '../src/index.ts';
import { startChildWorker } from './child-worker.ts';

const kinds = defineKinds({
  slow: { schema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
  steps: { schema: { type: 'object', properties: { n: { type: 'integer' }, stepMs: { type: 'integer' } }, required: ['n', 'stepMs'] } },
});

describe('checkpoints and snooze in a worker', () => {
  test('a job whose worker is SIGKILLed mid-way resumes from its last checkpoint on the next attempt', async ({ redisUrl, redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const child = await startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, VISIBILITY_MS: '500' });
    const id = await producer.enqueue('steps', { n: 5, stepMs: 20 });
    await child.waitForOutput(`checkpointed ${id} 2`);
    child.process.kill('SIGKILL');
    await child.exited;
    const done = ((await producer.getJob(id))?.checkpoint as { done: number } | undefined)?.done ?? 0;
    expect(done).toBeGreaterThanOrEqual(2);
    const survivor = createWorker({
      redis,
      queue: queueName,
      kinds,
      visibilityMs: 500,
      reclaimIntervalMs: 100,
      handlers: {
        slow: () => undefined,
        steps: async ({ n }, ctx) => {
          const from = ((await ctx.checkpointed()) as { done: number } | undefined)?.done ?? 0;
          for (let step = from + 1; step <= n; step++) await ctx.checkpoint({ done: step });
          return { from, attempt: ctx.attempt };
        },
      },
    });
    const result = (await producer.waitForResult(id, { timeoutMs: 15_000 })) as { from: number; attempt: number };
    // The survivor started where the killed worker's last checkpoint left off, not from 0.
    expect(result.from).toBeGreaterThanOrEqual(done);
    expect(result.attempt).toBe(2);
    expect((await producer.getJob(id))?.checkpoint).toEqual({ done: 5 });
    await Promise.all([survivor.close(), producer.close()]);
  });

  test('return ctx.snooze(ms): the job waits without spending an attempt, then runs as the same attempt', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const seen: { attempt: number }[] = [];
    let signalReason: unknown;
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      handlers: {
        steps: () => undefined,
        slow: async (_payload, ctx) => {
          const snoozedBefore = (await ctx.checkpointed()) === 'snoozed';
          seen.push({ attempt: ctx.attempt });
          if (snoozedBefore) return 'ran after its snooze';
          await ctx.checkpoint('snoozed');
          const { signal } = ctx;
          await ctx.snooze(30);
          signalReason = signal.reason;
          return 'never recorded';
        },
      },
    });
    const snoozed: number[] = [];
    worker.on('snoozed', ({ delayMs }) => snoozed.push(delayMs));
    const id = await producer.enqueue('slow', { ms: 0 }, { maxAttempts: 1 });
    expect(await producer.waitForResult(id, { timeoutMs: 10_000 })).toBe('ran after its snooze');
    expect(seen.map((run) => run.attempt)).toEqual([1, 1]);
    expect(snoozed).toEqual([30]);
    expect((signalReason as { code?: string }).code).toBe('JOBS_SNOOZED');
    const stats = await producer.stats();
    expect([stats.snoozedTotal, stats.retriedTotal, stats.completedTotal]).toEqual([1, 0, 1]);
    await waitFor(() => worker.running === 0 || undefined, { what: 'the worker to be idle' });
    await Promise.all([worker.close(), producer.close()]);
  });
});
