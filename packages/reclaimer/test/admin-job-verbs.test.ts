import { hostname, userInfo } from 'node:os';
import { defineKinds, Queue } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { BIN, runCli } from './cli.ts';

const kinds = defineKinds({ task: { schema: { type: 'object', properties: { n: { type: 'integer' } } } } });

describe('jobsctl promote, priority and remove (run as a child process)', () => {
  test('promote starts a delayed job now; priority moves a waiting job; remove deletes one; each says what kept a job', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const first = await queue.enqueue('task', { n: 1 });
    const delayed = await queue.enqueue('task', { n: 2 }, { delayMs: 3_600_000 });
    expect(await runCli(BIN.jobsctl, ['promote', delayed], env)).toMatchObject({ code: 0, stdout: `promoted ${delayed}: it waits in line now\n` });
    expect(await runCli(BIN.jobsctl, ['promote', delayed], env)).toMatchObject({ code: 1, stderr: expect.stringContaining(`cannot promote ${delayed}: it is pending`) });
    expect(JSON.parse((await runCli(BIN.jobsctl, ['priority', delayed, '5', '--json'], env)).stdout)).toEqual({ id: delayed, priority: 5, changed: true });
    expect((await runCli(BIN.jobsctl, ['priority', delayed, '1001'], env)).code).toBe(2);
    expect((await queue.claim())[0]?.id).toBe(delayed);
    expect(await runCli(BIN.jobsctl, ['remove', delayed], env)).toMatchObject({ code: 1, stderr: expect.stringContaining(`cannot remove ${delayed}: it is processing`) });
    expect(await runCli(BIN.jobsctl, ['remove', first], env)).toMatchObject({ code: 0, stdout: `removed ${first}\n` });
    expect(await queue.getJob(first)).toBeNull();
    expect(await runCli(BIN.jobsctl, ['remove', first], env)).toMatchObject({ code: 1, stderr: expect.stringContaining(`cannot remove ${first}: there is no such job`) });
    await queue.close();
  });

  test('pause records who paused (user@host by default, or --by), and why says so', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const id = await queue.enqueue('task', { n: 1 });
    expect((await runCli(BIN.jobsctl, ['pause'], env)).code).toBe(0);
    const me = `${userInfo().username}@${hostname()}`.slice(0, 64);
    expect((await queue.why(id))?.reasons.find((r) => r.code === 'queue-paused')).toMatchObject({ pausedBy: me });
    expect((await runCli(BIN.jobsctl, ['why', id], env)).stdout).toContain(`by ${me}`);
    expect((await runCli(BIN.jobsctl, ['pause', '--kind', 'task', '--by', 'deploy bot'], env)).code).toBe(0);
    expect((await queue.why(id))?.reasons.find((r) => r.code === 'kind-paused')).toMatchObject({ pausedBy: 'deploy bot' });
    expect((await runCli(BIN.jobsctl, ['pause', '--by', ''], env)).code).toBe(2);
    await queue.close();
  });
});
