import { defineKinds, Queue } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { BIN, runCli } from './cli.ts';

const kinds = defineKinds({ sync: { schema: { type: 'object', properties: { user: { type: 'string' } } } } });

describe('jobsctl dedupe (run as a child process)', () => {
  test('names the job that owns a key, its status and whether it absorbs; after the job completes, nobody holds it', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const id = await queue.enqueue('sync', { user: 'u7' }, { unique: { key: 'user-7' } });
    const shown = await runCli(BIN.jobsctl, ['dedupe', 'user-7', '--kind', 'sync'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^job\\s+${id}$`, 'm'));
    expect(shown.stdout).toMatch(/^status\s+pending$/m);
    expect(shown.stdout).toMatch(/^states\s+waiting, delayed, running$/m);
    expect(shown.stdout).toMatch(/^holding\s+yes/m);
    expect(JSON.parse((await runCli(BIN.jobsctl, ['dedupe', 'user-7', '--kind', 'sync', '--json'], env)).stdout)).toEqual({ jobId: id, status: 'pending', states: ['waiting', 'delayed', 'running'], period: false, holding: true });
    const [job] = await queue.claim();
    await queue.complete(job!, 1);
    const free = await runCli(BIN.jobsctl, ['dedupe', 'user-7', '--kind', 'sync'], env);
    expect(free.stdout, free.stderr).toMatch(/^no job holds key "user-7" of kind sync/);
    const missing = await runCli(BIN.jobsctl, ['dedupe', 'user-7'], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--kind/);
    await queue.close();
  });
});
