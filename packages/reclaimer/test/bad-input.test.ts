import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createDashboard, createReclaimer, defineKinds, Queue, jobsAclRules, jsonLogger, ReclaimerMetrics, startMetricsServer } from '../src/index.ts';

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

  test('the dashboard, the JSON logger and the metrics server refuse an unknown option key, naming it', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds: defineKinds({ email: { schema: { type: 'object' } } }) });
    try {
      expect(() => createDashboard({ queues: [queue], pollInterval: 1_000 } as never)).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'options.pollInterval' }));
    } finally {
      await queue.close();
    }
    expect(() => jsonLogger({ levle: 'debug' } as never)).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'options.levle' }));
    const metrics = new ReclaimerMetrics();
    await expect(Promise.resolve().then(() => startMetricsServer({ port: 0, metrics, healthy: async () => ({ ok: true }), bind: '0.0.0.0' } as never))).rejects.toMatchObject({ code: 'JOBS_INVALID_ARGUMENT', field: 'options.bind' });
  });
});
