import { describe, expect, test } from 'vitest';
import { BatchGatherer, BatchGatherers } from '../../src/batch-gatherer.ts';
import type { BatchLimits } from '../../src/handler-check.ts';
import { FakeClock } from './fake-clock.ts';

interface Item {
  readonly id: string;
  gone: boolean;
}

/** One or more gatherers on a fake clock, sharing `concurrency` slots, and the batches they ran. */
function gatherers(concurrency: number, limits: Record<string, BatchLimits>) {
  const clock = new FakeClock();
  const pool = new BatchGatherers<Item>(() => concurrency);
  const ran: { kind: string; ids: string[] }[] = [];
  for (const [kind, kindLimits] of Object.entries(limits)) {
    pool.set(kind, new BatchGatherer<Item>(kindLimits, clock, pool, (items) => ran.push({ kind, ids: items.map((item) => item.id) }), (item) => item.gone));
  }
  const add = (kind: string, ...ids: string[]): Item[] => {
    const items = ids.map((id) => ({ id, gone: false }));
    for (const item of items) pool.get(kind)?.add(item);
    return items;
  };
  return { clock, pool, ran, add };
}

describe('batch gathering', () => {
  test('a batch runs as soon as it has size jobs, with them in the order they came, and the next one starts empty', () => {
    const { ran, add, clock } = gatherers(10, { bulk: { size: 3, minSize: 1, maxWaitMs: 1_000 } });
    add('bulk', 'a', 'b');
    expect(ran).toEqual([]);
    add('bulk', 'c', 'd');
    expect(ran).toEqual([{ kind: 'bulk', ids: ['a', 'b', 'c'] }]);
    // The full batch cleared its wait: 'd' waits its own maxWaitMs from when it came.
    clock.advance(999);
    expect(ran).toHaveLength(1);
    clock.advance(1);
    expect(ran).toEqual([{ kind: 'bulk', ids: ['a', 'b', 'c'] }, { kind: 'bulk', ids: ['d'] }]);
  });

  test('a partial batch runs once maxWaitMs has passed since its first job, not since its last', () => {
    const { ran, add, clock } = gatherers(10, { bulk: { size: 5, minSize: 1, maxWaitMs: 200 } });
    add('bulk', 'a');
    clock.advance(150);
    add('bulk', 'b');
    clock.advance(49);
    expect(ran).toEqual([]);
    clock.advance(1);
    expect(ran).toEqual([{ kind: 'bulk', ids: ['a', 'b'] }]);
  });

  test('below minSize a batch waits past maxWaitMs for more jobs, and runs with the job that brings it to minSize', () => {
    const { ran, add, clock } = gatherers(10, { bulk: { size: 5, minSize: 3, maxWaitMs: 200 } });
    add('bulk', 'a', 'b');
    clock.advance(10_000);
    expect(ran).toEqual([]);
    add('bulk', 'c');
    expect(ran).toEqual([{ kind: 'bulk', ids: ['a', 'b', 'c'] }]);
  });

  test('with maxWaitMs 0 the jobs of one claim (added in one go) run together', () => {
    const { ran, add, clock } = gatherers(10, { bulk: { size: 5, minSize: 1, maxWaitMs: 0 } });
    add('bulk', 'a', 'b', 'c');
    expect(ran).toEqual([]);
    clock.advance(0);
    expect(ran).toEqual([{ kind: 'bulk', ids: ['a', 'b', 'c'] }]);
  });

  test('jobs that ended while gathered (a lost lease, a hand-back) are left out of the batch, and an empty batch does not run', () => {
    const { ran, add, clock } = gatherers(10, { bulk: { size: 5, minSize: 1, maxWaitMs: 100 } });
    const [a] = add('bulk', 'a', 'b') as [Item, Item];
    a.gone = true;
    clock.advance(100);
    expect(ran).toEqual([{ kind: 'bulk', ids: ['b'] }]);
    const [c] = add('bulk', 'c') as [Item];
    c.gone = true;
    clock.advance(100);
    expect(ran).toHaveLength(1);
  });

  test('an ended job does not count toward minSize', () => {
    const { ran, add, clock } = gatherers(10, { bulk: { size: 5, minSize: 2, maxWaitMs: 100 } });
    const [a] = add('bulk', 'a', 'b') as [Item, Item];
    a.gone = true;
    clock.advance(100);
    expect(ran).toEqual([]);
    add('bulk', 'c');
    expect(ran).toEqual([{ kind: 'bulk', ids: ['b', 'c'] }]);
  });

  test('when gathered jobs fill every slot of the worker, overdue batches run below minSize instead of waiting forever', () => {
    // Two batch kinds, each below its minSize, holding all 4 slots: no job could come to either.
    const { ran, add, clock } = gatherers(4, {
      left: { size: 4, minSize: 3, maxWaitMs: 100 },
      right: { size: 4, minSize: 3, maxWaitMs: 300 },
    });
    add('left', 'l1', 'l2');
    clock.advance(100);
    expect(ran).toEqual([]);
    add('right', 'r1', 'r2');
    // The worker is full now: the overdue batch runs at once; the other when its wait is over.
    expect(ran).toEqual([{ kind: 'left', ids: ['l1', 'l2'] }]);
    clock.advance(299);
    expect(ran).toHaveLength(1);
    add('left', 'l3', 'l4');
    clock.advance(1);
    expect(ran).toEqual([
      { kind: 'left', ids: ['l1', 'l2'] },
      { kind: 'right', ids: ['r1', 'r2'] },
    ]);
  });

  test('at stop what is gathered runs at once whatever minSize says, and jobs that come later run without waiting', () => {
    const { ran, add, clock, pool } = gatherers(10, { bulk: { size: 5, minSize: 4, maxWaitMs: 60_000 } });
    add('bulk', 'a', 'b');
    pool.stop();
    expect(ran).toEqual([{ kind: 'bulk', ids: ['a', 'b'] }]);
    // A claim in flight at the stop brings two more: they run together, in the same turn.
    add('bulk', 'c', 'd');
    clock.advance(0);
    expect(ran).toEqual([
      { kind: 'bulk', ids: ['a', 'b'] },
      { kind: 'bulk', ids: ['c', 'd'] },
    ]);
    expect(clock.pending()).toEqual([]);
  });
});
