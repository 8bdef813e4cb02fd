import { describe, expect, test } from 'vitest';
import { createWorker, isJobsError } from '../src/index.ts';
import { HANDLERS, isolatedKinds as kinds } from './isolated-harness.ts';

/** What createWorker throws for an isolated entry of kind `work` (nothing connects: the check comes first). */
function refusal(entry: Record<string, unknown>, concurrency = 4): unknown {
  try {
    const worker = createWorker({ redis: 'redis://127.0.0.1:1', queue: 'isolated-options', kinds, concurrency, autorun: false, handlers: { work: entry as never, timed: () => 1 } });
    void worker.close();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('isolated handler options', () => {
  const cases: { bad: Record<string, unknown>; field: string; says: string; concurrency?: number }[] = [
    { bad: { isolate: 'fiber', module: HANDLERS }, field: 'handlers.work.isolate', says: "expected 'thread' or 'process'" },
    { bad: { module: HANDLERS, isolate: undefined }, field: 'handlers.work.isolate', says: "expected 'thread' or 'process'" },
    { bad: { isolate: 'thread' }, field: 'handlers.work.module', says: 'got undefined' },
    { bad: { isolate: 'thread', module: './handler.js' }, field: 'handlers.work.module', says: "is relative; write new URL('./handler.js', import.meta.url)" },
    { bad: { isolate: 'thread', module: 'handler.js' }, field: 'handlers.work.module', says: 'is relative' },
    { bad: { isolate: 'process', module: new URL('https://example.com/handler.js') }, field: 'handlers.work.module', says: 'expected a file: URL, got a https: one' },
    { bad: { isolate: 'process', module: 'file://[bad/x.js' }, field: 'handlers.work.module', says: 'not a valid file: URL' },
    { bad: { isolate: 'process', module: 7 }, field: 'handlers.work.module', says: 'got number' },
    { bad: { isolate: 'thread', module: HANDLERS, pool: 0 }, field: 'handlers.work.pool', says: '' },
    { bad: { isolate: 'thread', module: HANDLERS, pool: 1.5 }, field: 'handlers.work.pool', says: '' },
    { bad: { isolate: 'thread', module: HANDLERS, pool: 5 }, field: 'handlers.work.pool', says: "never has more than the worker's concurrency (4)" },
    { bad: { isolate: 'thread', module: HANDLERS, memoryMb: 8 }, field: 'handlers.work.memoryMb', says: '' },
    { bad: { isolate: 'thread', module: HANDLERS, memoryMb: '64' }, field: 'handlers.work.memoryMb', says: '' },
    { bad: { isolate: 'thread', module: HANDLERS, graceMs: -1 }, field: 'handlers.work.graceMs', says: '' },
    { bad: { isolate: 'thread', module: HANDLERS, graceMs: 3_600_001 }, field: 'handlers.work.graceMs', says: '' },
    { bad: { isolate: 'thread', module: HANDLERS, memory: 64 }, field: 'handlers.work.memory', says: '' },
    { bad: { isolate: 'thread', module: HANDLERS, handler: () => 1 }, field: 'handlers.work.handler', says: '' },
  ];
  test.each(cases)('$field refused: $bad', ({ bad, field, says }) => {
    const error = refusal(bad);
    expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT')).toBe(true);
    expect(error).toMatchObject({ field });
    expect((error as Error).message).toContain(says);
  });

  test('a good entry is taken: an absolute path, a file: URL as text or as a URL, every option at its bounds', () => {
    for (const module of [HANDLERS, HANDLERS.href, HANDLERS.pathname]) {
      expect(refusal({ isolate: 'process', module, pool: 4, memoryMb: 16, graceMs: 0 })).toBeUndefined();
      expect(refusal({ isolate: 'thread', module, pool: 1, memoryMb: 1_048_576, graceMs: 3_600_000 })).toBeUndefined();
    }
  });
});
