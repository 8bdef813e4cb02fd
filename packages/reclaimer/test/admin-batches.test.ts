import { defineKinds, Queue } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { BIN, runCli } from './cli.ts';

const kinds = defineKinds({
  task: { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
  report: { schema: { type: 'object' } },
});

describe('jobsctl batches (run as a child process)', () => {
  test('lists each batch with its state, counts and which callbacks fired; --json gives them whole', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    await queue.enqueue('task', { n: 0 });
    const none = await runCli(BIN.jobsctl, ['batches'], env);
    expect(none.stdout, none.stderr).toBe(`no batches in ${queueName}\n`);
    const open = queue.batch({ id: 'nightly', onComplete: { kind: 'report', payload: {} } });
    await open.add([{ kind: 'task', payload: { n: 1 } }, { kind: 'task', payload: { n: 2 } }]);
    await queue.batch({ id: 'empty', onSuccess: { kind: 'report', payload: {} } }).seal();
    const listed = await runCli(BIN.jobsctl, ['batches'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^ID\s+STATE\s+TOTAL\s+SUCCEEDED\s+FAILED\s+CANCELLED\s+PENDING\s+CALLBACKS\s+CREATED$/m);
    expect(listed.stdout).toMatch(/^nightly\s+open\s+2\s+0\s+0\s+0\s+2\s+complete\s+\S+$/m);
    expect(listed.stdout).toMatch(/^empty\s+finished\s+0\s+0\s+0\s+0\s+0\s+success \(fired\)\s+\S+$/m);
    const json = JSON.parse((await runCli(BIN.jobsctl, ['batches', '--json'], env)).stdout) as { id: string; callbacks: Record<string, string | null> }[];
    expect(json.find((b) => b.id === 'empty')?.callbacks).toEqual({ success: 'batch:empty:success' });
    const bad = await runCli(BIN.jobsctl, ['batches', '--limit', '0'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--limit/);
    await queue.close();
  });
});
