import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createReclaimer, jobsAclRules } from '../src/index.ts';

describe('reclaimer bad input', () => {
  test('createReclaimer checks its options, with the field named', ({ redis }) => {
    for (const [override, field] of [
      [{ intervalMs: Number.NaN }, 'intervalMs'],
      [{ intervalMs: 1 }, 'intervalMs'],
      [{ batch: 0 }, 'batch'],
      [{ maxCallsPerSweep: 1.5 }, 'maxCallsPerSweep'],
      [{ visibilityMs: -1 }, 'visibilityMs'],
      [{ queues: ['ok', 'not ok'] }, 'queue'],
      [{ unhealthyAfterFailedSweeps: 0 }, 'unhealthyAfterFailedSweeps'],
      [{ interval: 1_000 }, 'options.interval'],
      [{ queue: 'mail' }, 'options.queue'],
    ] as [Record<string, unknown>, string][]) {
      expect(() => createReclaimer({ redis, ...override } as never), field).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field }));
    }
    expect(() => jobsAclRules(['a*'])).toThrow(expect.objectContaining({ field: 'queue' }));
  });
});
