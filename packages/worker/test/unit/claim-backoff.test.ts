import { describe, expect, test } from 'vitest';
import { FakeQueue } from './fake-queue.ts';
import { FakeClock, runUntil, startFakeWorker } from './harness.ts';

describe('claim backoff (fake queue, fake clock)', () => {
  test('after failed claims the worker waits longer each time, up to 5 s, and a claim that answers resets the wait', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.failClaims = Array.from({ length: 8 }, (_, n) => new Error(`Redis away (${n})`));
    const worker = startFakeWorker([queue], clock, 1, ({ n }) => n);
    const waits: number[] = [];
    for (let failure = 1; failure <= 8; failure += 1) {
      // The failure is reported and the loop's only timer is its back-off: read it, then let it pass.
      await runUntil(clock, () => worker.errors.length === failure && clock.pending().length === 1, 0);
      const [wait] = clock.pending();
      waits.push(wait as number);
      expect(queue.callsOf('claim')).toHaveLength(failure);
      clock.advance((wait as number) - 1);
      expect(queue.callsOf('claim')).toHaveLength(failure);
      clock.advance(1);
    }
    expect(waits).toEqual([100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000]);
    // The ninth claim answers (it blocks for work; a job comes), then the next one fails again.
    await runUntil(clock, () => queue.callsOf('claim').length === 9, 0);
    queue.failClaims = [new Error('Redis away again')];
    queue.push(1);
    await runUntil(clock, () => worker.errors.length === 9, 0);
    expect(queue.completed).toEqual(['fake-0']);
    // The next timer due is the back-off's (the job's lease renewal comes later).
    expect(clock.pending()[0]).toBe(100);
    expect(String(worker.errors[8])).toContain('Redis away again');
    await worker.scheduler.close(0);
  });
});
