import { isJobsError, Queue } from '@jobs/core';
import { redisTest as test, waitFor, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds } from '../src/index.ts';

const kinds = defineKinds({ task: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } });

describe('a worker created with autorun: false', () => {
  test('claims nothing and shows in no registry until run(), then works as any worker', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const ranBy: Record<string, number> = { idle: 0, busy: 0 };
    const handlers = (name: string) => ({
      task: async () => {
        ranBy[name] = (ranBy[name] ?? 0) + 1;
        return name;
      },
    });
    const idle = createWorker({ redis, queue: queueName, kinds, workerId: 'idle', autorun: false, handlers: handlers('idle') });
    const busy = createWorker({ redis, queue: queueName, kinds, workerId: 'busy', handlers: handlers('busy') });
    await busy.ready();
    await waitFor(async () => (await queue.workers()).some((worker) => worker.id === 'busy'), { what: 'the started worker registered' });
    for (let n = 0; n < 20; n += 1) await queue.enqueue('task', { n });
    await waitFor(async () => (await queue.stats()).completedTotal === 20, { what: 'every job completed' });
    // Twenty jobs, two workers on the queue: the one not run took none, and never heartbeat.
    expect(ranBy).toEqual({ idle: 0, busy: 20 });
    expect((await queue.workers()).map((worker) => worker.id)).toEqual(['busy']);
    expect(idle.running).toBe(0);
    await within(busy.close(), 15_000, () => 'busy worker close');

    idle.run();
    idle.run();
    await idle.ready();
    const id = await queue.enqueue('task', { n: 20 });
    await waitFor(async () => (await queue.getJob(id))?.status === 'completed', { what: 'the job the run worker took' });
    expect(ranBy.idle).toBe(1);
    expect((await queue.workers()).map((worker) => worker.id)).toEqual(['idle']);
    await within(idle.close(), 15_000, () => 'idle worker close');
    await queue.close();
  });

  test('closed before it ran: close resolves, ready rejects JOBS_CLOSED, run throws JOBS_CLOSED', async ({ redis, queueName }) => {
    const worker = createWorker({ redis, queue: queueName, kinds, autorun: false, handlers: { task: () => null } });
    const ready = worker.ready().catch((error: unknown) => error);
    await within(worker.close(), 15_000, () => 'close of a worker never run');
    await within(worker.close(), 15_000, () => 'second close');
    expect(isJobsError(await ready, 'JOBS_CLOSED')).toBe(true);
    let thrown: unknown;
    try {
      worker.run();
    } catch (error) {
      thrown = error;
    }
    expect(isJobsError(thrown, 'JOBS_CLOSED')).toBe(true);
  });

  test('autorun takes true or false only, and a bad value opens nothing', ({ redis, queueName }) => {
    let thrown: unknown;
    try {
      createWorker({ redis, queue: queueName, kinds, autorun: 'yes' as unknown as boolean, handlers: { task: () => null } });
    } catch (error) {
      thrown = error;
    }
    expect(isJobsError(thrown, 'JOBS_INVALID_ARGUMENT')).toBe(true);
    expect((thrown as { field?: string }).field).toBe('autorun');
  });
});
