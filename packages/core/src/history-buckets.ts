import { METRICS_HOUR_MS, METRICS_HOUR_SLOTS, METRICS_MINUTE_MS, METRICS_MINUTE_SLOTS, METRICS_RUN_BUCKETS, METRICS_SLOT_BYTES, METRICS_SLOT_FIELDS } from './generated/constants.ts';

/**
 * The arithmetic of the metrics history (scripts/lib/metrics.lua), kept free of Redis so that it
 * is tested on its own: which run-time bucket a duration falls in, percentiles from those
 * buckets, and the columns of a read (stale slots dropped by their stamps, steps filled in,
 * kinds and partitions summed, steps merged into longer ones). A slot's fields, 1-based as the scripts number them: enqueued, completed, failed,
 * retried, then {@link METRICS_RUN_BUCKETS} run-time buckets.
 */
export const HISTORY_FIELD = Object.freeze({ enqueued: 1, completed: 2, failed: 3, retried: 4, firstRunBucket: 5 });

/** One ring of the history: its step (ms) and how many steps it keeps. */
export interface HistoryRing {
  /** 0: the minute ring, 1: the hour ring (as the scripts number them). */
  readonly ring: 0 | 1;
  readonly stepMs: number;
  readonly slots: number;
}

/** The minute ring (24 hours) and the hour ring (14 days). */
export const HISTORY_RINGS: readonly [HistoryRing, HistoryRing] = [
  { ring: 0, stepMs: METRICS_MINUTE_MS, slots: METRICS_MINUTE_SLOTS },
  { ring: 1, stepMs: METRICS_HOUR_MS, slots: METRICS_HOUR_SLOTS },
];

/** The longest span a read may ask for: the hour ring's (14 days). */
export const HISTORY_MAX_SINCE_MS = METRICS_HOUR_MS * METRICS_HOUR_SLOTS;

/**
 * The run-time bucket of a duration of `ms`: 0 below 1 ms, bucket k (1 to 24) from 2^(k-1) up to
 * 2^k ms, and the last (25) from 2^24 ms (about 4.7 hours) on.
 */
export function runBucketOf(ms: number): number {
  if (!(ms >= 1)) return 0;
  return Math.min(METRICS_RUN_BUCKETS - 1, Math.floor(Math.log2(ms)) + 1);
}

/** The bounds (ms) of run-time bucket `k`: from `low` up to `high` (Infinity for the last). */
export function runBucketBounds(k: number): { low: number; high: number } {
  if (k === 0) return { low: 0, high: 1 };
  return { low: 2 ** (k - 1), high: k === METRICS_RUN_BUCKETS - 1 ? Number.POSITIVE_INFINITY : 2 ** k };
}

/**
 * The `p` quantile (0 < p ≤ 1) of the run times counted in `buckets`, or null when none is: the
 * bucket that holds it, and within it an interpolation on the log scale (linear in the first),
 * so the answer lies within the bucket (a factor of 2) of the true one. The open last bucket
 * answers its lower bound. Rounded to 0.1 ms.
 */
export function percentileOf(buckets: readonly number[], p: number): number | null {
  let total = 0;
  for (const count of buckets) total += count;
  if (total === 0) return null;
  const rank = p * total;
  let before = 0;
  for (let k = 0; k < buckets.length; k += 1) {
    const count = buckets[k] as number;
    if (count > 0 && before + count >= rank) {
      const fraction = Math.min(1, Math.max(0, (rank - before) / count));
      const { low, high } = runBucketBounds(k);
      const value = k === 0 ? fraction : high === Number.POSITIVE_INFINITY ? low : low * (high / low) ** fraction;
      return Math.round(value * 10) / 10;
    }
    before += count;
  }
  return null;
}

/** The ring a read of the last `sinceMs` uses (the minute ring up to 24 hours), and how many of its steps. */
export function ringFor(sinceMs: number): { ring: HistoryRing; steps: number } {
  const ring = sinceMs <= METRICS_MINUTE_MS * METRICS_MINUTE_SLOTS ? HISTORY_RINGS[0] : HISTORY_RINGS[1];
  return { ring, steps: Math.max(1, Math.min(ring.slots, Math.ceil(sinceMs / ring.stepMs))) };
}

/** The step (ms since the epoch // step length) that time `ms` falls in. */
export function stepOf(ms: number, stepMs: number): number {
  return Math.floor(ms / stepMs);
}

/** The slot of the ring where step `step` lives (the scripts' `step % slots`). */
export function slotOf(step: number, slots: number): number {
  return step % slots;
}

/** Per step, the {@link METRICS_SLOT_FIELDS} fields (index 0 is field 1), summed over partitions. */
export type StepTotals = Map<number, number[]>;

/**
 * Adds one kind's slots, as the read script returns them, into `totals`: `bytes` holds the slots
 * of `steps` consecutive steps from step `first`, oldest first, {@link METRICS_SLOT_BYTES} each
 * (big-endian u32: the stamp, then the {@link METRICS_SLOT_FIELDS} fields). A slot whose stamp is
 * not its step holds an older step's counts (or none) and reads as zero.
 */
export function addSlots(totals: StepTotals, bytes: Uint8Array, first: number, steps: number): StepTotals {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < steps && (i + 1) * METRICS_SLOT_BYTES <= bytes.byteLength; i += 1) {
    const at = i * METRICS_SLOT_BYTES;
    const step = first + i;
    if (view.getUint32(at) !== step) continue;
    let sum = totals.get(step);
    if (sum === undefined) {
      sum = new Array<number>(METRICS_SLOT_FIELDS).fill(0);
      totals.set(step, sum);
    }
    for (let f = 0; f < METRICS_SLOT_FIELDS; f += 1) sum[f] = (sum[f] as number) + view.getUint32(at + 4 + f * 4);
  }
  return totals;
}

/** The columns of a history read, one entry per step, oldest first (what a chart takes). */
export interface HistoryColumns {
  /** The length of a step (ms). */
  readonly stepMs: number;
  /** When each step starts (ms since the epoch, Redis clock). */
  readonly atMs: number[];
  readonly enqueued: number[];
  readonly completed: number[];
  /** Jobs dead-lettered. */
  readonly failed: number[];
  /** Failed attempts that were retried (at once or after their backoff). */
  readonly retried: number[];
  /** Run-time percentiles (ms) of the attempts that ended in the step, null when none did. */
  readonly runMsP50: (number | null)[];
  readonly runMsP95: (number | null)[];
  readonly runMsP99: (number | null)[];
}

/**
 * The columns of the `steps` steps of `ring` ending with the one `nowMs` falls in, from
 * `totals`: a step without data reads as zero. With `factor` > 1, each run of `factor` steps
 * (aligned on multiples of `factor`) is merged into one: counts and run-time buckets summed, the
 * percentiles taken from the sums (percentiles themselves cannot be added up).
 */
export function historyColumns(totals: StepTotals, ring: HistoryRing, steps: number, nowMs: number, factor = 1): HistoryColumns {
  const last = stepOf(nowMs, ring.stepMs);
  const first = last - steps + 1;
  const columns: HistoryColumns = { stepMs: ring.stepMs * factor, atMs: [], enqueued: [], completed: [], failed: [], retried: [], runMsP50: [], runMsP95: [], runMsP99: [] };
  let group = -1;
  let sum: number[] = [];
  const flush = (): void => {
    if (group < 0) return;
    columns.atMs.push(group * ring.stepMs * factor);
    columns.enqueued.push(sum[HISTORY_FIELD.enqueued - 1] as number);
    columns.completed.push(sum[HISTORY_FIELD.completed - 1] as number);
    columns.failed.push(sum[HISTORY_FIELD.failed - 1] as number);
    columns.retried.push(sum[HISTORY_FIELD.retried - 1] as number);
    const buckets = sum.slice(HISTORY_FIELD.firstRunBucket - 1);
    columns.runMsP50.push(percentileOf(buckets, 0.5));
    columns.runMsP95.push(percentileOf(buckets, 0.95));
    columns.runMsP99.push(percentileOf(buckets, 0.99));
  };
  for (let step = first; step <= last; step += 1) {
    const at = Math.floor(step / factor);
    if (at !== group) {
      flush();
      group = at;
      sum = new Array<number>(METRICS_SLOT_FIELDS).fill(0);
    }
    const fields = totals.get(step);
    if (fields !== undefined) for (let f = 0; f < METRICS_SLOT_FIELDS; f += 1) sum[f] = (sum[f] as number) + (fields[f] as number);
  }
  flush();
  return columns;
}
