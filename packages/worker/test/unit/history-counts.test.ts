import { describe, expect, test } from 'vitest';
import { HISTORY_FIELD, METRICS_SLOT_FIELDS, runBucketOf } from '@jobs/core/internal';
import { HistoryCounts, type HistorySink } from '../../src/history-counts.ts';
import { FakeClock } from './fake-clock.ts';

/** A sink that records each flush (a copy), failing the next one when told. */
class FakeSink implements HistorySink {
  readonly flushes: Map<string, number[]>[] = [];
  failNext = false;

  async add(counts: ReadonlyMap<string, readonly number[]>): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('Redis away');
    }
    this.flushes.push(new Map([...counts].map(([kind, amounts]) => [kind, [...amounts]])));
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
  test('outcomes and run-time buckets are counted per kind in memory and sent once per interval, not per job', async () => {
    const clock = new FakeClock();
    const sink = new FakeSink();
    const errors: unknown[] = [];
    const counts = new HistoryCounts({ sink, clock, intervalMs: 5_000, fields: METRICS_SLOT_FIELDS, onError: (error) => errors.push(error) });
    counts.ended('email', 'completed', 12);
    counts.ended('email', 'completed', 14);
    counts.ended('email', 'retried', 300);
    counts.ended('email', 'delayed', 0.5);
    counts.ended('webhook', 'failed', 2_000);
    clock.advance(4_999);
    await turns();
    expect(sink.flushes).toEqual([]);
    clock.advance(1);
    await turns();
    const bucket = (ms: number): number => HISTORY_FIELD.firstRunBucket + runBucketOf(ms);
    expect(sink.flushes).toEqual([
      new Map([
        ['email', amounts({ [HISTORY_FIELD.completed]: 2, [HISTORY_FIELD.retried]: 2, [bucket(12)]: 2, [bucket(300)]: 1, [bucket(0.5)]: 1 })],
        ['webhook', amounts({ [HISTORY_FIELD.failed]: 1, [bucket(2_000)]: 1 })],
      ]),
    ]);
    // An interval with nothing counted sends nothing.
    clock.advance(5_000);
    await turns();
    expect(sink.flushes).toHaveLength(1);
    expect(errors).toEqual([]);
    await counts.stop();
  });

  test('a failed flush keeps its counts for the next one, and stop sends what is left at once', async () => {
    const clock = new FakeClock();
    const sink = new FakeSink();
    const errors: unknown[] = [];
    const counts = new HistoryCounts({ sink, clock, intervalMs: 1_000, fields: METRICS_SLOT_FIELDS, onError: (error) => errors.push(error) });
    counts.ended('email', 'completed', 3);
    sink.failNext = true;
    clock.advance(1_000);
    await turns();
    expect(errors).toHaveLength(1);
    expect(sink.flushes).toEqual([]);
    counts.ended('email', 'completed', 3);
    clock.advance(1_000);
    await turns();
    expect(sink.flushes.at(-1)?.get('email')?.[HISTORY_FIELD.completed - 1]).toBe(2);
    counts.ended('email', 'failed', 3);
    await counts.stop();
    expect(sink.flushes.at(-1)?.get('email')?.[HISTORY_FIELD.failed - 1]).toBe(1);
    // Stopped: no timer is left, and nothing more is sent.
    expect(clock.pending()).toEqual([]);
  });
});
