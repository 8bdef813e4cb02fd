import { isJobsError } from '@jobs/core';
import { describe, expect, test } from 'vitest';
import { FakeQueue } from './fake-queue.ts';
import { deferred, FakeClock, runUntil, startFakeWorker } from './harness.ts';

describe('worker close (fake queue, fake clock)', () => {
  test('running jobs that finish within the grace period complete, and nothing is handed back', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(2);
    const finish = deferred();
    const worker = startFakeWorker([queue], clock, 2, async (_payload, { id }) => {
      await finish.promise;
      return id;
    });
    await runUntil(clock, () => worker.scheduler.running === 2, 0);
    let closed = false;
    worker.events.on('closed', () => (closed = true));
    const closing = worker.scheduler.close(1_000);
    clock.advance(999);
    finish.resolve();
    await closing;
    expect(closed).toBe(true);
    expect(queue.completed.sort()).toEqual(['fake-0', 'fake-1']);
    expect(queue.released).toEqual([]);
    expect(worker.group.closed).toBe(true);
  });

  test('jobs still running when the grace period ends are aborted and handed back, exactly those', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(3);
    const finishFirst = deferred();
    const reasons = new Map<string, unknown>();
    const worker = startFakeWorker([queue], clock, 3, async ({ n }, { id, signal }) => {
      if (n === 0) return finishFirst.promise;
      return new Promise((_, reject) =>
        signal.addEventListener('abort', () => {
          reasons.set(id, signal.reason);
          reject(signal.reason as Error);
        }),
      );
    });
    await runUntil(clock, () => worker.scheduler.running === 3, 0);
    const closing = worker.scheduler.close(1_000);
    finishFirst.resolve();
    await runUntil(clock, () => queue.completed.length === 1, 0);
    clock.advance(1_000);
    await closing;
    expect(queue.completed).toEqual(['fake-0']);
    expect(queue.released.sort()).toEqual(['fake-1', 'fake-2']);
    expect([...reasons.values()].every((reason) => isJobsError(reason, 'JOBS_CLOSED'))).toBe(true);
    expect(reasons.size).toBe(2);
    // Handed back, not reported: no failure recorded for them.
    expect(queue.callsOf('fail')).toEqual([]);
    expect(worker.scheduler.running).toBe(0);
  });

  test('a job claimed by a completion batch that answers after the grace period is handed back, not started', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(3);
    const ran: string[] = [];
    const finishSecond = deferred();
    const worker = startFakeWorker([queue], clock, 2, async ({ n }, { id, signal }) => {
      ran.push(id);
      if (n === 1) {
        await finishSecond.promise;
        return n;
      }
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
    });
    await runUntil(clock, () => ran.length === 2, 0);
    // Job 1's completion batch also claims job 2 (its slot passes on); its reply is held on its way.
    queue.holdCompletions = true;
    finishSecond.resolve();
    await runUntil(clock, () => queue.held.length === 1, 0);
    expect(queue.held[0]?.what).toBe('complete and claim fake-1');
    const closing = worker.scheduler.close(100);
    // The grace period ends with both jobs running as far as the worker knows: it hands them back.
    clock.advance(100);
    await runUntil(clock, () => queue.released.length === 2, 0);
    for (const held of queue.held.splice(0)) held.answer();
    await closing;
    expect(ran).toEqual(['fake-0', 'fake-1']);
    expect(queue.callsOf('release').map((call) => call.ids)).toEqual([['fake-0', 'fake-1'], ['fake-2']]);
  });

  test('a job the claim in flight brings after close began runs in the grace period: none is dropped', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    const ran: string[] = [];
    const worker = startFakeWorker([queue], clock, 2, (_payload, { id }) => {
      ran.push(id);
      return id;
    });
    // The fetch loop is blocked in its claim, waiting for work; a job arrives as close begins.
    await runUntil(clock, () => queue.callsOf('claim').length === 1, 0);
    const closing = worker.scheduler.close(1_000);
    queue.push(1);
    await closing;
    expect(ran).toEqual(['fake-0']);
    expect(queue.completed).toEqual(['fake-0']);
    expect(queue.released).toEqual([]);
    expect(worker.errors).toEqual([]);
  });
});
