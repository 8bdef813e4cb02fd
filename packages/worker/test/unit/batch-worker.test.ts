import { isJobsError } from '@jobs/core';
import { describe, expect, test } from 'vitest';
import type { BatchHandlerEntry } from '../../src/index.ts';
import { FakeQueue, type TaskPayloads } from './fake-queue.ts';
import { deferred, FakeClock, runUntil, startFakeWorker } from './harness.ts';

type TaskBatch = BatchHandlerEntry<TaskPayloads['task'], 'task'>;

describe('batch kinds in the worker (fake queue, fake clock)', () => {
  test('one claim of six jobs runs as two full batches of three, each job completed or failed on its own', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(6);
    const batches: number[][] = [];
    const entry: TaskBatch = {
      batch: { size: 3, maxWaitMs: 60_000 },
      handler: (jobs) => {
        batches.push(jobs.map((job) => job.payload.n));
        return jobs.map((job) => (job.payload.n === 4 ? new Error('row rejected') : { row: job.payload.n }));
      },
    };
    const worker = startFakeWorker([queue], clock, 6, entry);
    await runUntil(clock, () => queue.completed.length === 5 && queue.callsOf('fail').length === 1, 0);
    expect(batches).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    expect(queue.completed.sort()).toEqual(['fake-0', 'fake-1', 'fake-2', 'fake-3', 'fake-5']);
    expect(queue.callsOf('fail')).toEqual([{ verb: 'fail', id: 'fake-4', permanent: false }]);
    await worker.scheduler.close(0);
  });

  test('a batch takes one slot per job: with every slot gathered, the worker claims no more until the batch ends', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(5);
    const finish = deferred();
    const entry: TaskBatch = { batch: { size: 4, maxWaitMs: 60_000 }, handler: () => finish.promise };
    const worker = startFakeWorker([queue], clock, 4, entry);
    await runUntil(clock, () => worker.scheduler.running === 4, 0);
    // Nothing free: the fifth job stays pending while the batch runs.
    expect(queue.claimedCount).toBe(4);
    finish.resolve();
    await runUntil(clock, () => queue.claimedCount === 5, 0);
    await worker.scheduler.close(0);
  });

  test('a job whose lease is lost while it is gathered is left out of its batch: lost is emitted, and the others run', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(2);
    const batches: string[][] = [];
    const entry: TaskBatch = { batch: { size: 3, maxWaitMs: 20_000 }, handler: (jobs) => void batches.push(jobs.map((job) => job.id)) };
    const worker = startFakeWorker([queue], clock, 3, entry);
    const lost: string[] = [];
    worker.events.on('lost', ({ job }) => lost.push(job.id));
    await runUntil(clock, () => worker.scheduler.running === 2, 0);
    queue.lostLeases.add('fake-0');
    // The first renewal comes a third of the 30 s lease in, before the batch's 20 s wait is over.
    await runUntil(clock, () => lost.length === 1, 1_000);
    expect(batches).toEqual([]);
    expect(worker.scheduler.running).toBe(1);
    await runUntil(clock, () => queue.completed.length === 1, 1_000);
    expect(batches).toEqual([['fake-1']]);
    expect(lost).toEqual(['fake-0']);
    expect(queue.completed).toEqual(['fake-1']);
    expect(queue.callsOf('fail')).toEqual([]);
    await worker.scheduler.close(0);
  });

  test('at close, jobs gathered below minSize run at once within the grace period, and nothing is handed back', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(2);
    const batches: string[][] = [];
    const entry: TaskBatch = { batch: { size: 5, minSize: 5, maxWaitMs: 100 }, handler: (jobs) => void batches.push(jobs.map((job) => job.id)) };
    const worker = startFakeWorker([queue], clock, 5, entry);
    await runUntil(clock, () => worker.scheduler.running === 2, 0);
    clock.advance(10_000);
    expect(batches).toEqual([]);
    await worker.scheduler.close(1_000);
    expect(batches).toEqual([['fake-0', 'fake-1']]);
    expect(queue.completed.sort()).toEqual(['fake-0', 'fake-1']);
    expect(queue.released).toEqual([]);
  });

  test('a batch still running when the grace period ends is aborted (its signal and each job\'s) and all its jobs are handed back', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(3);
    let batchReason: unknown;
    const jobReasons: unknown[] = [];
    const entry: TaskBatch = {
      batch: { size: 3, maxWaitMs: 0 },
      handler: (jobs, { signal }) =>
        new Promise((_, reject) => {
          for (const job of jobs) job.signal.addEventListener('abort', () => jobReasons.push(job.signal.reason));
          signal.addEventListener('abort', () => {
            batchReason = signal.reason;
            reject(signal.reason as Error);
          });
        }),
    };
    const worker = startFakeWorker([queue], clock, 3, entry);
    await runUntil(clock, () => worker.scheduler.running === 3, 0);
    const closing = worker.scheduler.close(500);
    clock.advance(500);
    await closing;
    expect(isJobsError(batchReason, 'JOBS_CLOSED')).toBe(true);
    expect(jobReasons).toHaveLength(3);
    expect(queue.released.sort()).toEqual(['fake-0', 'fake-1', 'fake-2']);
    expect(queue.callsOf('fail')).toEqual([]);
    expect(queue.completed).toEqual([]);
  });

  test('a batch handler that throws fails every job of the batch; results of the wrong length fail them all for good', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(4);
    let calls = 0;
    const entry: TaskBatch = {
      batch: { size: 2, maxWaitMs: 0 },
      handler: (jobs) => {
        calls += 1;
        if (calls === 1) throw new Error('bulk insert failed');
        return [jobs[0]?.id];
      },
    };
    const worker = startFakeWorker([queue], clock, 2, entry);
    await runUntil(clock, () => queue.callsOf('fail').length === 4, 0);
    expect(queue.callsOf('fail')).toEqual([
      { verb: 'fail', id: 'fake-0', permanent: false },
      { verb: 'fail', id: 'fake-1', permanent: false },
      { verb: 'fail', id: 'fake-2', permanent: true },
      { verb: 'fail', id: 'fake-3', permanent: true },
    ]);
    await worker.scheduler.close(0);
  });
});
