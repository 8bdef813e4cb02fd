import { describe, expect, test } from 'vitest';
import { WorkerOrders } from '../../src/worker-orders.ts';
import { FakeQueue } from './fake-queue.ts';
import { deferred, FakeClock, runUntil, startFakeWorker } from './harness.ts';

describe('quiet, resume and concurrency changes (fake queue, fake clock)', () => {
  test('a quiet worker claims nothing, neither alone nor with its completions, finishes what it runs, and claims again once resumed', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(2);
    const release = deferred();
    const aborted: boolean[] = [];
    const worker = startFakeWorker([queue], clock, 2, async (_payload, { signal }) => {
      await release.promise;
      aborted.push(signal.aborted);
    });
    await runUntil(clock, () => worker.scheduler.running === 2);
    await worker.scheduler.quiet();
    expect(worker.scheduler.settledQuiet).toBe(true);
    const claimsBefore = queue.callsOf('claim').length;
    queue.push(5);
    release.resolve();
    await runUntil(clock, () => queue.completed.length === 2 && worker.scheduler.running === 0);
    clock.advance(5_000);
    await runUntil(clock, () => true);
    // The two completions claimed nothing with them, and the fetch loop sent no claim.
    expect(queue.callsOf('complete').every((call) => call.max === 0)).toBe(true);
    expect(queue.callsOf('claim').length).toBe(claimsBefore);
    expect(queue.pendingCount).toBe(5);
    expect(aborted).toEqual([false, false]);
    worker.scheduler.resume();
    await runUntil(clock, () => queue.completed.length === 7);
    await worker.scheduler.close(0);
    expect(worker.errors).toEqual([]);
  });

  test('quiet ends a blocking claim in flight and resolves once it has answered', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    const worker = startFakeWorker([queue], clock, 1, async () => undefined);
    await runUntil(clock, () => queue.callsOf('claim').some((call) => call.blockMs > 0));
    await worker.scheduler.quiet();
    queue.push(1);
    clock.advance(10_000);
    await runUntil(clock, () => true);
    expect(queue.pendingCount).toBe(1);
    await worker.scheduler.close(0);
  });

  test('more slots claim at once: a worker scaled from 1 to 4 runs four jobs together', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(4);
    const release = deferred();
    let running = 0;
    let most = 0;
    const worker = startFakeWorker([queue], clock, 1, async () => {
      running += 1;
      most = Math.max(most, running);
      await release.promise;
      running -= 1;
    });
    await runUntil(clock, () => running === 1);
    worker.scheduler.setConcurrency(4);
    await runUntil(clock, () => running === 4);
    release.resolve();
    await runUntil(clock, () => queue.completed.length === 4);
    expect(most).toBe(4);
    await worker.scheduler.close(0);
  });

  test('fewer slots abort nothing: the jobs running finish, and then no more than the new number run at once', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(40);
    let running = 0;
    let mostAfter = 0;
    let lowered = false;
    const aborted: boolean[] = [];
    const first = deferred();
    const worker = startFakeWorker([queue], clock, 4, async (_payload, { signal }) => {
      running += 1;
      if (lowered) mostAfter = Math.max(mostAfter, running);
      if (!lowered) await first.promise;
      else await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), 5));
      running -= 1;
      aborted.push(signal.aborted);
    });
    await runUntil(clock, () => running === 4);
    worker.scheduler.setConcurrency(1);
    lowered = true;
    first.resolve();
    await runUntil(clock, () => queue.completed.length === 40);
    expect(aborted.filter(Boolean)).toEqual([]);
    // The four running finished while the new ones started one at a time: at most the four, then one.
    expect(mostAfter).toBeLessThanOrEqual(4);
    const last = queue.callsOf('complete').slice(-10);
    for (const call of last) expect(call.max).toBeLessThanOrEqual(1);
    await worker.scheduler.close(0);
    expect(worker.errors).toEqual([]);
  });

  test('after a scale down, only the new number of jobs run at once once the old ones are done', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(4);
    const first = deferred();
    let running = 0;
    let most = 0;
    let phase = 1;
    const worker = startFakeWorker([queue], clock, 4, async () => {
      running += 1;
      if (phase === 2) most = Math.max(most, running);
      if (phase === 1) await first.promise;
      else await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), 5));
      running -= 1;
    });
    await runUntil(clock, () => running === 4);
    worker.scheduler.setConcurrency(2);
    first.resolve();
    await runUntil(clock, () => running === 0 && queue.completed.length === 4);
    phase = 2;
    queue.push(20);
    await runUntil(clock, () => queue.completed.length === 24);
    expect(most).toBe(2);
    await worker.scheduler.close(0);
  });

  test('quiet, resume and scale on a closing or closed worker do nothing harmful', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(1);
    const release = deferred();
    const worker = startFakeWorker([queue], clock, 2, async () => release.promise);
    await runUntil(clock, () => worker.scheduler.running === 1);
    const closing = worker.scheduler.close(60_000);
    await worker.scheduler.quiet();
    worker.scheduler.resume();
    worker.scheduler.setConcurrency(5);
    queue.push(3);
    release.resolve();
    await runUntil(clock, () => queue.completed.length === 1);
    await closing;
    await worker.scheduler.quiet();
    worker.scheduler.resume();
    worker.scheduler.setConcurrency(1);
    expect(queue.pendingCount).toBe(3);
    expect(worker.errors).toEqual([]);
  });
});

describe('worker orders', () => {
  function steered() {
    const done: string[] = [];
    const orders = new WorkerOrders('w1', {
      quiet: async () => void done.push('quiet'),
      resumeClaiming: () => void done.push('resume'),
      setConcurrency: (n) => {
        if (n < 2) throw new Error('below the batch size');
        done.push(`scale ${n}`);
      },
    }, (_error, message) => done.push(`error: ${message}`));
    return { orders, done };
  }

  test('each order is obeyed once, heard or read back from a heartbeat, and those to other workers are left alone', () => {
    const { orders, done } = steered();
    orders.heard({ op: 'quiet', worker: 'w2', seq: 1 });
    orders.heard({ op: 'quiet', worker: 'w1', seq: 1 });
    orders.stored({ quietOrder: { seq: 1, value: 1 }, scaleOrder: undefined });
    orders.stored({ quietOrder: { seq: 2, value: 0 }, scaleOrder: { seq: 3, value: 8 } });
    orders.heard({ op: 'resume', worker: 'w1', seq: 2 });
    orders.heard({ op: 'scale', worker: 'w1', seq: 3, concurrency: 8 });
    expect(done).toEqual(['quiet', 'resume', 'scale 8']);
  });

  test('an order older than one obeyed changes nothing, and a refused scale is reported', () => {
    const { orders, done } = steered();
    orders.heard({ op: 'resume', worker: 'w1', seq: 5 });
    orders.heard({ op: 'quiet', worker: 'w1', seq: 4 });
    orders.heard({ op: 'scale', worker: 'w1', seq: 6, concurrency: 1 });
    expect(done).toEqual(['resume', 'error: a scale order was refused']);
  });
});
