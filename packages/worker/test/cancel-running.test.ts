import { isJobsError, queueKeys } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { openProxiedRedis, redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds } from '../src/index.ts';
import { startChildWorker } from './child-worker.ts';

const kinds = defineKinds({
  slow: { schema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
});

describe('cancelling a running job', () => {
  test('reaches the worker process running it: its signal aborts with JOBS_CANCELLED, the job ends cancelled, and the slot runs the next job', async ({ redisUrl, redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const child = await startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, VISIBILITY_MS: '60000' });
    const id = await producer.enqueue('slow', { ms: 600_000 });
    await child.waitForOutput(`started ${id}`);
    expect(await producer.cancel(id)).toEqual({ cancelled: true, wasRunning: true });
    // A lease of 60 s: only the control channel can have told it this soon.
    await child.waitForOutput(`aborted ${id} JOBS_CANCELLED`);
    await child.waitForOutput(`cancelled ${id}`);
    expect((await producer.getJob(id))?.status).toBe('cancelled');
    // Its only slot is free again: the next job runs there.
    const next = await producer.enqueue('slow', { ms: 1 });
    expect(await producer.waitForResult(next, { timeoutMs: 10_000 })).toMatchObject({ sleptMs: 1 });
    const failed = await producer.waitForResult(id, { timeoutMs: 1_000 }).catch((error: unknown) => error);
    expect(isJobsError(failed, 'JOBS_JOB_FAILED')).toBe(true);
    child.process.kill('SIGTERM');
    await child.exited;
    await producer.close();
  });

  test('frees the slot of a handler that never resolves and ignores its signal', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const started: string[] = [];
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      concurrency: 1,
      handlers: {
        slow: ({ ms }, { id }) => {
          started.push(id);
          return ms > 0 ? new Promise(() => undefined) : 'done';
        },
      },
    });
    const cancelled: string[] = [];
    worker.on('cancelled', ({ job }) => cancelled.push(job.id));
    const stuck = await producer.enqueue('slow', { ms: 1 });
    await waitFor(() => started.includes(stuck) || undefined, { what: 'the stuck job to start' });
    const next = await producer.enqueue('slow', { ms: 0 });
    expect(await producer.cancel(stuck)).toMatchObject({ cancelled: true, wasRunning: true });
    expect(await producer.waitForResult(next, { timeoutMs: 10_000 })).toBe('done');
    expect(cancelled).toEqual([stuck]);
    expect(worker.running).toBe(0);
    await Promise.all([worker.close({ graceMs: 0 }), producer.close()]);
  });

  test('a cancel whose message is lost reaches the handler at the next lease renewal', async ({ redisUrl, redis, queueName }) => {
    const proxied = await openProxiedRedis(redisUrl, redis);
    const control = queueKeys(queueName).control;
    // The worker's SUBSCRIBE to the control channel never reaches Redis: no order can come.
    const held = proxied.proxy.holdBefore((command) => command[0] === 'SUBSCRIBE' && command.includes(control));
    const producer = createProducer({ redis, queue: queueName, kinds });
    let reason: unknown;
    const worker = createWorker({
      redis: proxied.redis,
      queue: queueName,
      kinds,
      visibilityMs: 600,
      handlers: {
        slow: (_payload, { signal }) =>
          new Promise((_resolve, reject) => {
            signal.addEventListener('abort', () => {
              reason = signal.reason;
              reject(signal.reason as Error);
            });
          }),
      },
    });
    worker.on('error', () => undefined);
    await held;
    const id = await producer.enqueue('slow', { ms: 1 });
    await waitFor(async () => (await producer.getJob(id))?.status === 'processing' || undefined, { what: 'the job to start' });
    await producer.cancel(id);
    await waitFor(() => reason, { what: 'the abort from the renewal', timeoutMs: 10_000 });
    expect(isJobsError(reason, 'JOBS_CANCELLED')).toBe(true);
    expect((await producer.getJob(id))?.status).toBe('cancelled');
    // The held subscriber connection would never answer the close's QUIT.
    proxied.proxy.closeHeld();
    await Promise.all([worker.close({ graceMs: 0 }), producer.close()]);
    proxied.redis.disconnect();
    await proxied.proxy.close();
  });
});
