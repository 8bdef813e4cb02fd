import { describe, expect, test } from 'vitest';
import { METRICS_RUN_BUCKETS, METRICS_SLOT_BYTES } from '../src/generated/constants.ts';
import { addSlots, HISTORY_FIELD, HISTORY_RINGS, historyColumns, percentileOf, ringFor, runBucketBounds, runBucketOf, slotOf, stepOf, type StepTotals } from '../src/history-buckets.ts';

/** Run-time buckets holding `times` (ms). */
function bucketsOf(times: readonly number[]): number[] {
  const buckets = new Array<number>(METRICS_RUN_BUCKETS).fill(0);
  for (const ms of times) buckets[runBucketOf(ms)] = (buckets[runBucketOf(ms)] as number) + 1;
  return buckets;
}

/**
 * Slots as the read script returns them: `steps` slots from step `first`, each stamped with its
 * step, its fields from `set` (step: { field: amount }); `stale` steps are stamped a ring earlier.
 */
function slots(first: number, steps: number, set: Record<number, Record<number, number>>, stale: readonly number[] = []): Uint8Array {
  const bytes = new Uint8Array(steps * METRICS_SLOT_BYTES);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < steps; i += 1) {
    const step = first + i;
    if (set[step] === undefined && !stale.includes(step)) continue;
    view.setUint32(i * METRICS_SLOT_BYTES, stale.includes(step) ? step - 1440 : step);
    for (const [field, amount] of Object.entries(set[step] ?? {})) view.setUint32(i * METRICS_SLOT_BYTES + Number(field) * 4, amount);
  }
  return bytes;
}

const [minutes, hours] = HISTORY_RINGS;

describe('run-time buckets', () => {
  test('a duration falls in the bucket whose bounds hold it: below 1 ms, then powers of two, then the open last one', () => {
    expect(runBucketOf(0)).toBe(0);
    expect(runBucketOf(0.4)).toBe(0);
    expect(runBucketOf(1)).toBe(1);
    expect(runBucketOf(1.9)).toBe(1);
    expect(runBucketOf(2)).toBe(2);
    expect(runBucketOf(100)).toBe(7);
    expect(runBucketOf(2 ** 24)).toBe(METRICS_RUN_BUCKETS - 1);
    expect(runBucketOf(1e12)).toBe(METRICS_RUN_BUCKETS - 1);
    expect(runBucketOf(Number.NaN)).toBe(0);
    for (const ms of [0.5, 1, 3, 64, 127.9, 1000, 65_000, 3_600_000]) {
      const { low, high } = runBucketBounds(runBucketOf(ms));
      expect(ms >= low && ms < high, `${ms} in [${low}, ${high})`).toBe(true);
    }
  });

  test('a percentile lies in the bucket of the true one, interpolated on the log scale', () => {
    // 1..1000 ms, one of each: the true p50 is 500, p95 950, p99 990.
    const times = Array.from({ length: 1000 }, (_, i) => i + 1);
    const buckets = bucketsOf(times);
    for (const [p, truth] of [[0.5, 500], [0.95, 950], [0.99, 990]] as const) {
      const value = percentileOf(buckets, p) as number;
      const { low, high } = runBucketBounds(runBucketOf(truth));
      expect(value, `p${p * 100}`).toBeGreaterThanOrEqual(low);
      expect(value, `p${p * 100}`).toBeLessThanOrEqual(high);
    }
  });

  test('exact percentiles of known buckets: the geometric interpolation and the edge buckets', () => {
    // Two runs in [64, 128): the median is halfway along on the log scale, 64 * 2^0.5.
    expect(percentileOf(bucketsOf([100, 100]), 0.5)).toBe(90.5);
    expect(percentileOf(bucketsOf([100, 100]), 1)).toBe(128);
    // Below 1 ms: linear within [0, 1).
    expect(percentileOf(bucketsOf([0.2, 0.2, 0.2, 0.2]), 0.5)).toBe(0.5);
    // The open last bucket answers its lower bound.
    expect(percentileOf(bucketsOf([2 ** 30]), 0.99)).toBe(2 ** 24);
    // 99 fast runs and one slow: p50 among the fast, p99 at the top of the fast bucket, p100 the slow.
    const mixed = bucketsOf([...Array.from({ length: 99 }, () => 10), 5_000]);
    expect(percentileOf(mixed, 0.5)).toBeLessThan(16);
    expect(percentileOf(mixed, 0.99)).toBe(16);
    expect(percentileOf(mixed, 1)).toBe(8192);
    expect(percentileOf(bucketsOf([]), 0.5)).toBeNull();
  });
});

describe('rings and columns', () => {
  test('a read up to 24 hours takes the minute ring, past it the hour ring, never more steps than the ring keeps', () => {
    expect(ringFor(3_600_000)).toEqual({ ring: minutes, steps: 60 });
    expect(ringFor(86_400_000)).toEqual({ ring: minutes, steps: 1440 });
    expect(ringFor(86_400_001)).toEqual({ ring: hours, steps: 25 });
    expect(ringFor(14 * 86_400_000)).toEqual({ ring: hours, steps: 336 });
    expect(ringFor(30 * 86_400_000)).toEqual({ ring: hours, steps: 336 });
    expect(ringFor(90_000)).toEqual({ ring: minutes, steps: 2 });
  });

  test('a step maps to its slot modulo the ring, so a step a whole ring later shares the slot (the stamp tells them apart)', () => {
    const now = Date.UTC(2026, 11, 2, 5, 30, 15);
    const step = stepOf(now, minutes.stepMs);
    expect(step * 60_000).toBe(Date.UTC(2026, 11, 2, 5, 30));
    expect(slotOf(step, minutes.slots)).toBe(slotOf(step + minutes.slots, minutes.slots));
    expect(slotOf(step, minutes.slots)).not.toBe(slotOf(step + 1, minutes.slots));
  });

  test('columns end with the step of now, keep only slots stamped with their step, fill the rest with zeros, and sum kinds and partitions', () => {
    const now = Date.UTC(2026, 11, 2, 5, 30, 15);
    const last = stepOf(now, minutes.stepMs);
    const first = last - 4;
    const totals: StepTotals = new Map();
    // One kind: two steps with data, and a slot of the same place a ring ago (stale: zero).
    addSlots(totals, slots(first, 5, { [last - 2]: { [HISTORY_FIELD.enqueued]: 3, [HISTORY_FIELD.completed]: 2, [HISTORY_FIELD.firstRunBucket + 7]: 2 }, [last]: { [HISTORY_FIELD.failed]: 1 }, [last - 1]: { [HISTORY_FIELD.enqueued]: 99 } }, [last - 1]), first, 5);
    // Another kind (or partition): the same step adds up.
    addSlots(totals, slots(first, 5, { [last - 2]: { [HISTORY_FIELD.enqueued]: 1, [HISTORY_FIELD.retried]: 4 } }), first, 5);
    // An empty kind (no string) and a cut-short one change nothing.
    addSlots(totals, new Uint8Array(0), first, 5);
    addSlots(totals, slots(first, 5, { [first]: { [HISTORY_FIELD.enqueued]: 7 } }).subarray(0, METRICS_SLOT_BYTES - 1), first, 5);
    const columns = historyColumns(totals, minutes, 5, now);
    expect(columns).toEqual({
      stepMs: 60_000,
      atMs: [-4, -3, -2, -1, 0].map((d) => (last + d) * 60_000),
      enqueued: [0, 0, 4, 0, 0],
      completed: [0, 0, 2, 0, 0],
      failed: [0, 0, 0, 0, 1],
      retried: [0, 0, 4, 0, 0],
      runMsP50: [null, null, 90.5, null, null],
      runMsP95: [null, null, percentileOf(bucketsOf([100, 100]), 0.95), null, null],
      runMsP99: [null, null, percentileOf(bucketsOf([100, 100]), 0.99), null, null],
    });
  });

  test('merging steps sums counts and buckets, and takes the percentiles from the summed buckets', () => {
    // 10:00 to 10:59 of one day, read as 15-minute steps.
    const now = Date.UTC(2026, 11, 2, 10, 59, 59);
    const last = stepOf(now, minutes.stepMs);
    const totals: StepTotals = new Map();
    // Minute 10:01: 9 runs of 10 ms; minute 10:14: one of 5 s. Minute 10:15 starts the next step.
    addSlots(totals, slots(last - 59, 60, {
      [last - 58]: { [HISTORY_FIELD.completed]: 9, [HISTORY_FIELD.firstRunBucket + runBucketOf(10)]: 9 },
      [last - 45]: { [HISTORY_FIELD.failed]: 1, [HISTORY_FIELD.firstRunBucket + runBucketOf(5_000)]: 1 },
      [last - 44]: { [HISTORY_FIELD.enqueued]: 7 },
    }), last - 59, 60);
    const columns = historyColumns(totals, minutes, 60, now, 15);
    expect(columns.stepMs).toBe(900_000);
    expect(columns.atMs).toEqual([0, 1, 2, 3].map((q) => Date.UTC(2026, 11, 2, 10, q * 15)));
    expect(columns.completed).toEqual([9, 0, 0, 0]);
    expect(columns.failed).toEqual([1, 0, 0, 0]);
    expect(columns.enqueued).toEqual([0, 7, 0, 0]);
    const merged = bucketsOf([...Array.from({ length: 9 }, () => 10), 5_000]);
    expect(columns.runMsP50[0]).toBe(percentileOf(merged, 0.5));
    expect(columns.runMsP99[0]).toBe(percentileOf(merged, 0.99));
    expect(columns.runMsP99[0]).toBeGreaterThan(4096);
    expect(columns.runMsP50.slice(1)).toEqual([null, null, null]);
  });
});
