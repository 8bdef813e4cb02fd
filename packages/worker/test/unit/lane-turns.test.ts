import { describe, expect, test } from 'vitest';
import { LANE_TURN_MS } from '../../src/lane-turns.ts';
import { FakeQueue } from './fake-queue.ts';
import { FakeClock, runUntil, startFakeWorker } from './harness.ts';

/** Which lane each job ran from, in the order they started. */
function startOrder(lanes: readonly FakeQueue[], clock: FakeClock, concurrency: number): { order: string[]; worker: ReturnType<typeof startFakeWorker> } {
  const order: string[] = [];
  const worker = startFakeWorker(lanes, clock, concurrency, async (_payload, { id }) => {
    order.push(id.split('-')[0] as string);
    // Each job takes 10 ms on the clock, so a turn of 250 ms holds a couple of hundred.
    await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), 10));
  });
  return { order, worker };
}

/** The order's runs: consecutive starts from one lane count as one. */
function runsOf(order: readonly string[]): string[] {
  return order.filter((lane, index) => index === 0 || order[index - 1] !== lane);
}

/** How many starts each run holds. */
function runLengths(order: readonly string[]): number[] {
  const lengths: number[] = [];
  order.forEach((lane, index) => {
    if (index === 0 || order[index - 1] !== lane) lengths.push(1);
    else lengths[lengths.length - 1] = (lengths.at(-1) as number) + 1;
  });
  return lengths;
}

/** `runs` as round robin over `names` would have them, from whichever lane had the first turn. */
function roundRobin(runs: readonly string[], names: readonly string[]): string[] {
  const start = names.indexOf(runs[0] as string);
  return runs.map((_, index) => names[(start + index) % names.length] as string);
}

describe('lane turns on a partitioned queue (fake queues, fake clock)', () => {
  test('partitions with work take turns, round robin, and share the worker evenly', async () => {
    const clock = new FakeClock();
    const lanes = ['a', 'b', 'c'].map((name) => new FakeQueue(clock, name));
    for (const lane of lanes) lane.push(500);
    const { order, worker } = startOrder(lanes, clock, 8);
    await runUntil(clock, () => order.length >= 900, 10);
    const first = order.slice(0, 900);
    // Round robin: each turn passes to the next lane with work.
    const runs = runsOf(first);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    expect(runs).toEqual(roundRobin(runs, ['a', 'b', 'c']));
    // Every whole turn is about LANE_TURN_MS of work: 8 slots of 10 ms jobs, some 200 jobs, whatever the depth.
    const perTurn = (LANE_TURN_MS / 10) * 8;
    const lengths = runLengths(first).slice(0, -1);
    expect(lengths.length).toBeGreaterThanOrEqual(3);
    for (const length of lengths) expect(Math.abs(length - perTurn)).toBeLessThan(perTurn / 4);
    await runUntil(clock, () => lanes.every((lane) => lane.completed.length === 500), 10);
    await worker.scheduler.close(0);
    expect(worker.errors).toEqual([]);
  });

  test('an empty partition passes its turn at once, and one that gets work is served again', async () => {
    const clock = new FakeClock();
    const lanes = ['a', 'b', 'c'].map((name) => new FakeQueue(clock, name));
    lanes[0]?.push(300);
    lanes[2]?.push(300);
    const { order, worker } = startOrder(lanes, clock, 8);
    await runUntil(clock, () => order.length >= 400, 10);
    const runs = runsOf(order.slice(0, 400));
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs).toEqual(roundRobin(runs, ['a', 'c']));
    lanes[1]?.push(50);
    await runUntil(clock, () => (lanes[1]?.completed.length ?? 0) === 50, 10);
    await runUntil(clock, () => lanes.every((lane) => lane.completed.length === lane.claimedCount) && order.length === 650, 10);
    await worker.scheduler.close(0);
    expect(worker.errors).toEqual([]);
  });
});
