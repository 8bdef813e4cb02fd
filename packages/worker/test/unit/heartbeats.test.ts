import { describe, expect, test } from 'vitest';
import { Heartbeats, type HeartbeatSink } from '../../src/heartbeats.ts';
import { FakeQueue } from './fake-queue.ts';
import { deferred, FakeClock, runUntil, startFakeWorker } from './harness.ts';

/** A registry that records what it is told, answering each heartbeat with the fake clock's time. */
class FakeRegistry implements HeartbeatSink {
  readonly calls: string[] = [];
  readonly beats: { running: readonly string[]; startedAtMs: number | undefined; atMs: number }[] = [];
  /** While set, heartbeats wait for it (a slow Redis). */
  hold: Promise<void> | undefined;
  failNext = false;

  readonly clock: FakeClock;

  constructor(clock: FakeClock) {
    this.clock = clock;
  }

  async beat(running: readonly string[], startedAtMs: number | undefined): Promise<{ nowMs: number }> {
    const atMs = this.clock.now();
    this.calls.push('beat');
    this.beats.push({ running: [...running], startedAtMs, atMs });
    await this.hold;
    if (this.failNext) {
      this.failNext = false;
      throw new Error('Redis away');
    }
    return { nowMs: atMs };
  }

  async leave(): Promise<void> {
    this.calls.push('leave');
  }
}

const turns = async (): Promise<void> => {
  for (let i = 0; i < 8; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

describe('heartbeats (fake clock)', () => {
  test('the first heartbeat goes at once, then one every interval after the previous one ended, each with the first reply as its start', async () => {
    const clock = new FakeClock();
    const registry = new FakeRegistry(clock);
    const start = clock.now();
    const heartbeats = new Heartbeats({ sink: registry, clock, intervalMs: 5_000, runningIds: () => [], onError: () => undefined });
    await turns();
    expect(registry.beats.map((beat) => beat.atMs - start)).toEqual([0]);
    clock.advance(4_999);
    await turns();
    expect(registry.beats).toHaveLength(1);
    clock.advance(1);
    await turns();
    clock.advance(5_000);
    await turns();
    expect(registry.beats.map((beat) => beat.atMs - start)).toEqual([0, 5_000, 10_000]);
    expect(registry.beats.map((beat) => beat.startedAtMs)).toEqual([undefined, start, start]);
    await heartbeats.stop();
  });

  test('a slow heartbeat never has a second one sent beside it, and a failed one is reported and followed by the next', async () => {
    const clock = new FakeClock();
    const registry = new FakeRegistry(clock);
    const errors: unknown[] = [];
    const slow = deferred();
    registry.hold = slow.promise;
    registry.failNext = true;
    const heartbeats = new Heartbeats({ sink: registry, clock, intervalMs: 1_000, runningIds: () => [], onError: (error) => errors.push(error) });
    clock.advance(10_000);
    await turns();
    expect(registry.beats).toHaveLength(1);
    registry.hold = undefined;
    slow.resolve();
    await turns();
    expect(errors).toHaveLength(1);
    clock.advance(1_000);
    await turns();
    expect(registry.beats).toHaveLength(2);
    // The failed first heartbeat gave no start: the next is still taken as the first.
    expect(registry.beats[1]?.startedAtMs).toBeUndefined();
    await heartbeats.stop();
  });

  test('stop waits for the heartbeat in flight, then leaves, and no heartbeat follows', async () => {
    const clock = new FakeClock();
    const registry = new FakeRegistry(clock);
    const slow = deferred();
    registry.hold = slow.promise;
    const heartbeats = new Heartbeats({ sink: registry, clock, intervalMs: 1_000, runningIds: () => [], onError: () => undefined });
    const stopped = heartbeats.stop();
    await turns();
    expect(registry.calls).toEqual(['beat']);
    slow.resolve();
    await stopped;
    clock.advance(60_000);
    await turns();
    expect(registry.calls).toEqual(['beat', 'leave']);
  });

  test("a worker's heartbeats carry the ids of the jobs in its slots, go on through the close's grace period, and it leaves once its jobs are handed back", async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    const registry = new FakeRegistry(clock);
    queue.push(2);
    const worker = startFakeWorker([queue], clock, 2, (_payload, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error))), undefined, undefined, { sink: registry, intervalMs: 1_000 });
    await runUntil(clock, () => worker.scheduler.running === 2, 0);
    clock.advance(1_000);
    await turns();
    expect([...(registry.beats.at(-1)?.running ?? [])].sort()).toEqual(['fake-0', 'fake-1']);
    const closing = worker.scheduler.close(5_000);
    const before = registry.beats.length;
    clock.advance(3_000);
    await turns();
    expect(registry.beats.length).toBeGreaterThan(before);
    expect(registry.calls).not.toContain('leave');
    clock.advance(2_000);
    await closing;
    expect(queue.released.sort()).toEqual(['fake-0', 'fake-1']);
    expect(registry.calls.at(-1)).toBe('leave');
  });
});
