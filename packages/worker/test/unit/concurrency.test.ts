import { describe, expect, test } from 'vitest';
import { FakeQueue } from './fake-queue.ts';
import { FakeClock, runUntil, startFakeWorker } from './harness.ts';

describe('worker slots (fake queue, fake clock)', () => {
  test('never runs more than `concurrency` jobs at once, though claims ride on completion batches, and runs each job once', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(300);
    let running = 0;
    let most = 0;
    const runs = new Map<string, number>();
    const worker = startFakeWorker([queue], clock, 8, async ({ n }, { id }) => {
      running += 1;
      most = Math.max(most, running, worker.scheduler.running);
      runs.set(id, (runs.get(id) ?? 0) + 1);
      // Jobs of unequal length, so completion batches and claims interleave.
      await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), 5 + (n % 7) * 5));
      running -= 1;
      return n;
    });
    await runUntil(clock, () => queue.completed.length === 300);
    expect(most).toBe(8);
    expect(runs.size).toBe(300);
    expect([...runs.values()].every((times) => times === 1)).toBe(true);
    // Most jobs came with completion batches, not with claims of their own.
    const batchClaimed = queue.callsOf('complete').reduce((sum, call) => sum + call.max, 0);
    expect(batchClaimed).toBeGreaterThan(150);
    await worker.scheduler.close(0);
    expect(worker.errors).toEqual([]);
  });

  test('a claim never asks for more jobs than there are free slots', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(100);
    const worker = startFakeWorker([queue], clock, 5, async () => {
      await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), 10));
    });
    await runUntil(clock, () => queue.completed.length === 100);
    for (const call of queue.callsOf('claim')) expect(call.max).toBeLessThanOrEqual(5);
    // A batch claims for the slots its completions free, plus the free ones: never more than the concurrency.
    for (const call of queue.callsOf('complete')) expect(call.max).toBeLessThanOrEqual(5);
    await worker.scheduler.close(0);
  });
});
