import { describe, expect, test } from 'vitest';
import { FakeQueue } from './fake-queue.ts';
import { FakeClock, runUntil, startFakeWorker } from './harness.ts';

describe('a worker at low load (fake queue, fake clock)', () => {
  test('sends its next blocking claim only once the completion in flight has answered', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.completionRoundTripMs = 1;
    const worker = startFakeWorker([queue], clock, 8, ({ n }) => n);
    await runUntil(clock, () => queue.callsOf('claim').length === 1, 0);
    // One job at a time: each finds the worker blocked, waiting for work.
    for (let n = 1; n <= 5; n += 1) {
      queue.push(1);
      await runUntil(clock, () => queue.completed.length === n && queue.completionsInFlight === 0 && queue.callsOf('claim').length === n + 1, 1);
    }
    const blocking = queue.callsOf('claim').filter((call) => call.blockMs > 0);
    expect(blocking).toHaveLength(6);
    expect(blocking.map((call) => call.completionsInFlight)).toEqual([0, 0, 0, 0, 0, 0]);
    // A lone completion claims nothing: pending looked empty.
    expect(queue.callsOf('complete').map((call) => call.max)).toEqual([0, 0, 0, 0, 0]);
    await worker.scheduler.close(0);
  });

  test('a completion that does not answer holds the next claim back 10 ms at most: other slots still get jobs', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.holdCompletions = true;
    const started: string[] = [];
    const worker = startFakeWorker([queue], clock, 4, (_payload, { id }) => {
      started.push(id);
      return id;
    });
    // No completion is ever answered; jobs still start, one at a time, in the three other slots.
    for (let n = 1; n <= 4; n += 1) {
      queue.push(1);
      await runUntil(clock, () => started.length === n, 1);
    }
    expect(queue.completionsInFlight).toBeGreaterThan(0);
    const blocking = queue.callsOf('claim').filter((call) => call.blockMs > 0);
    expect(blocking.slice(1).every((call) => call.completionsInFlight > 0)).toBe(true);
    // The wait for the completions is bounded by 10 ms on the clock, never a full claim timeout.
    expect(clock.asked).toContain(10);
    // Every slot now holds a job whose completion has not answered; once they answer, the next job starts.
    expect(worker.scheduler.running).toBe(4);
    queue.push(1);
    for (const held of queue.held.splice(0)) held.answer();
    await runUntil(clock, () => started.length === 5, 1);
    queue.holdCompletions = false;
    for (const held of queue.held.splice(0)) held.answer();
    await worker.scheduler.close(0);
    expect(worker.errors).toEqual([]);
  });
});
