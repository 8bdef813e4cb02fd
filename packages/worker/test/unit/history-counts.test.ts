import { describe, expect, test } from 'vitest';
import { HISTORY_FIELD, METRICS_SLOT_FIELDS, runBucketOf } from '@jobs/core/internal';
import { HistoryCounts, type HistorySink } from '../../src/history-counts.ts';
import { FakeClock } from './fake-clock.ts';

/** A sink that records each call (a copy of its counts, under its partition), failing the next one when told. */
class FakeSink implements HistorySink {
  readonly calls: { partition: string; counts: Map<string, number[]> }[] = [];
  failNext = false;

  async add(partition: string, counts: ReadonlyMap<string, readonly number[]>): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('Redis away');
    }
    this.calls.push({ partition, counts: new Map([...counts].map(([kind, amounts]) => [kind, [...amounts]])) });
  }

  /** The counts of the calls so far, of `partition` (default 'q'). */
  flushes(partition = 'q'): Map<string, number[]>[] {
    return this.calls.filter((call) => call.partition === partition).map((call) => call.counts);
  }
}

const turns = async (): Promise<void> => {
  for (let i = 0; i < 8; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

/** The amounts of one kind with `set` (field: amount) filled in. */
function amounts(set: Record<number, number>): number[] {
  const fields = new Array<number>(METRICS_SLOT_FIELDS).fill(0);
  for (const [field, amount] of Object.entries(set)) fields[Number(field) - 1] = amount;
  return fields;
}

describe('history counts (fake clock)', () => {
  test('outcomes and run-time buckets are counted per partition and kind in memory and sent once per interval, a call per partition, not per job', async () => {
    const clock = new FakeClock();
    const sink = new FakeSink();
    const errors: unknown[] = [];
    const counts = new HistoryCounts({ sink, clock, intervalMs: 5_000, fields: METRICS_SLOT_FIELDS, onError: (error) => errors.push(error) });
    counts.ended('q', 'email', 'completed', 12);
    counts.ended('q', 'email', 'completed', 14);
    counts.ended('q', 'email', 'retried', 300);
    counts.ended('q', 'email', 'delayed', 0.5);
    counts.ended('q', 'webhook', 'failed', 2_000);
    counts.ended('q:p1', 'email', 'completed', 1);
    clock.advance(4_999);
    await turns();
    expect(sink.calls).toEqual([]);
    clock.advance(1);
    await turns();
    expect(sink.calls.map((call) => call.partition).sort()).toEqual(['q', 'q:p1']);
    expect(sink.flushes('q:p1')).toEqual([new Map([['email', amounts({ [HISTORY_FIELD.completed]: 1, [HISTORY_FIELD.firstRunBucket + runBucketOf(1)]: 1 })]])]);
    const bucket = (ms: number): number => HISTORY_FIELD.firstRunBucket + runBucketOf(ms);
    expect(sink.flushes()).toEqual([
      new Map([
        ['email', amounts({ [HISTORY_FIELD.completed]: 2, [HISTORY_FIELD.retried]: 2, [bucket(12)]: 2, [bucket(300)]: 1, [bucket(0.5)]: 1 })],
        ['webhook', amounts({ [HISTORY_FIELD.failed]: 1, [bucket(2_000)]: 1 })],
      ]),
    ]);
    // An interval with nothing counted sends nothing.
    clock.advance(5_000);
    await turns();
    expect(sink.calls).toHaveLength(2);
    expect(errors).toEqual([]);
    await counts.stop();
  });

  test('a failed flush keeps its counts for the next one, and stop sends what is left at once', async () => {
    const clock = new FakeClock();
    const sink = new FakeSink();
    const errors: unknown[] = [];
    const counts = new HistoryCounts({ sink, clock, intervalMs: 1_000, fields: METRICS_SLOT_FIELDS, onError: (error) => errors.push(error) });
    counts.ended('q', 'email', 'completed', 3);
    sink.failNext = true;
    clock.advance(1_000);
    await turns();
    expect(errors).toHaveLength(1);
    expect(sink.calls).toEqual([]);
    counts.ended('q', 'email', 'completed', 3);
    clock.advance(1_000);
    await turns();
    expect(sink.flushes().at(-1)?.get('email')?.[HISTORY_FIELD.completed - 1]).toBe(2);
    counts.ended('q', 'email', 'failed', 3);
    await counts.stop();
    expect(sink.flushes().at(-1)?.get('email')?.[HISTORY_FIELD.failed - 1]).toBe(1);
    // Stopped: no timer is left, and nothing more is sent.
    expect(clock.pending()).toEqual([]);
  });
});
