import { Queue } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds } from '../src/index.ts';
import { startChildWorker } from './child-worker.ts';

const kinds = defineKinds({
  slow: { schema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
});

describe('worker processes', () => {
  test("a killed worker's 3 s job is reclaimed within about a second of the SIGKILL and runs again", async ({ redisUrl, redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const child = await startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, VISIBILITY_MS: '500' });
    const id = await producer.enqueue('slow', { ms: 3_000 });
    await child.waitForOutput(`started ${id}`);
    // Alive: its lease is renewed, so sweeps find nothing to reclaim.
    const sweeps = new Queue({ redis, queue: queueName, kinds, visibilityMs: 500 });
    const [seconds, micros] = await redis.time();
    const killedAt = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    child.process.kill('SIGKILL');
    await child.exited;
    // A surviving worker (in this process) sweeps every 100 ms and runs what comes back.
    const survivor = createWorker({
      redis,
      queue: queueName,
      kinds,
      visibilityMs: 500,
      reclaimIntervalMs: 100,
      handlers: { slow: ({ ms }) => ({ rerunAfterMs: ms }) },
    });
    expect(await producer.waitForResult(id, { timeoutMs: 15_000 })).toEqual({ rerunAfterMs: 3_000 });
    const job = await producer.getJob(id);
    expect(job?.attempts).toBe(2);
    const delay = (job?.reclaimedAtMs ?? Number.POSITIVE_INFINITY) - killedAt;
    expect(delay).toBeGreaterThan(0);
    // About a second (lease 500 ms + one sweep interval); the slack covers a busy machine.
    expect(delay).toBeLessThan(3_000);
    await Promise.all([survivor.close(), sweeps.close(), producer.close()]);
  });

  test('SIGTERM closes the worker gracefully: the running job goes back to pending at once and the process exits 0', async ({ redisUrl, redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const child = await startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, VISIBILITY_MS: '30000', GRACE_MS: '100' });
    const id = await producer.enqueue('slow', { ms: 60_000 });
    await child.waitForOutput(`started ${id}`);
    child.process.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    expect(child.output()).toMatch(/closed/);
    // Back in pending at once, not after the 30 s visibility timeout.
    const job = await producer.getJob(id);
    expect(job).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await redis.lrange(`queue:{${queueName}}:pending`, 0, -1)).toEqual([id]);
    await producer.close();
  });

  test('a closed worker leaves no open handles: the process exits by itself', async ({ redisUrl, redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const child = await startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, EXIT_ON_CLOSE: '0', GRACE_MS: '100' });
    const id = await producer.enqueue('slow', { ms: 10 });
    expect(await producer.waitForResult(id)).toMatchObject({ sleptMs: 10 });
    child.process.kill('SIGINT');
    const code = await Promise.race([child.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 10_000))]);
    expect(code).toBe(0);
    await waitFor(() => child.output().includes('closed'));
    await producer.close();
  });
});
