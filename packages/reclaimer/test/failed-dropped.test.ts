import { defineKinds, Queue, type Logger } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createReclaimer } from '../src/index.ts';

const kinds = defineKinds({ task: { schema: { type: 'object', properties: { n: { type: 'integer' } } } } });

/** A logger that keeps its warnings. */
function warningsLogger(): { logger: Logger; warnings: Record<string, unknown>[] } {
  const warnings: Record<string, unknown>[] = [];
  const ignore = (): void => undefined;
  return { warnings, logger: { debug: ignore, info: ignore, error: ignore, warn: (fields, msg) => warnings.push({ ...fields, msg }) } };
}

describe('failed jobs deleted by an explicit cap', () => {
  test('are exported as a metric and logged as a warning each time their count grows', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, failedHistory: 1 });
    const failJobs = async (count: number): Promise<void> => {
      await queue.enqueueMany(Array.from({ length: count }, (_, n) => ({ kind: 'task' as const, payload: { n } })));
      for (const job of await queue.claim({ max: count })) await queue.fail(job, 'boom', { permanent: true });
    };
    const { logger, warnings } = warningsLogger();
    const reclaimer = createReclaimer({ redis, queues: [queueName], logger });
    const metric = async (): Promise<number | undefined> => {
      const sample = (await reclaimer.metrics.registry.getSingleMetric('jobs_queue_jobs_total')?.get())?.values.find((value) => value.labels.queue === queueName && value.labels.event === 'failed_dropped');
      return sample?.value;
    };
    try {
      await reclaimer.runOnce();
      expect(await metric()).toBe(0);
      expect(warnings).toEqual([]);
      await failJobs(3);
      await reclaimer.runOnce();
      expect(await metric()).toBe(2);
      expect(warnings).toEqual([expect.objectContaining({ queue: queueName, failedDroppedTotal: 2, since: 2 })]);
      await reclaimer.runOnce();
      expect(warnings).toHaveLength(1);
      await failJobs(1);
      await reclaimer.runOnce();
      expect(warnings[1]).toMatchObject({ queue: queueName, failedDroppedTotal: 3, since: 1 });
    } finally {
      await reclaimer.stop();
      await queue.close();
    }
  });
});
