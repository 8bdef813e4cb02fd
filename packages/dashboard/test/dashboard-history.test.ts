import { defineKinds, Queue } from '@jobs/core';
import { addHistory, HISTORY_FIELD, METRICS_SLOT_FIELDS, runBucketOf } from '@jobs/core/internal';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { jobQueueSource } from '../src/index.ts';
import { startTestDashboard } from './dashboard-client.ts';

const kinds = defineKinds({ email: { schema: { type: 'object' } }, sms: { schema: { type: 'object' } } });
const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

describe('the dashboard API: metrics history', () => {
  test('GET history answers the columns of the last hour, day or 14 days, of every kind or one, as the charts take them', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, metricsHistory: true });
    await queue.enqueueMany([{ kind: 'email', payload: {} }, { kind: 'email', payload: {} }, { kind: 'sms', payload: {} }]);
    const amounts = new Array<number>(METRICS_SLOT_FIELDS).fill(0);
    amounts[HISTORY_FIELD.completed - 1] = 2;
    amounts[HISTORY_FIELD.firstRunBucket - 1 + runBucketOf(100)] = 2;
    await addHistory(queue.partitions[0]!.ctx, new Map([['email', amounts]]));
    const d = await startTestDashboard([queue]);
    try {
      const hour = await d.call('GET', `api/queues/${queueName}/history?range=1h`);
      expect(hour.status).toBe(200);
      expect(Object.keys(hour.body).sort()).toEqual(['atMs', 'completed', 'enqueued', 'failed', 'kind', 'kinds', 'queue', 'range', 'retried', 'runMsP50', 'runMsP95', 'runMsP99', 'stepMs']);
      expect(hour.body).toMatchObject({ queue: queueName, range: '1h', kind: null, kinds: ['email', 'sms'], stepMs: 60_000 });
      for (const column of ['atMs', 'enqueued', 'completed', 'failed', 'retried', 'runMsP50', 'runMsP95', 'runMsP99']) expect(hour.body[column], column).toHaveLength(60);
      expect([sum(hour.body.enqueued), sum(hour.body.completed), sum(hour.body.failed)]).toEqual([3, 2, 0]);
      expect((hour.body.runMsP50 as (number | null)[]).filter((p) => p !== null)).toEqual([90.5]);
      // Oldest first, a minute apart.
      expect((hour.body.atMs as number[]).every((at, i, all) => i === 0 || at - (all[i - 1] as number) === 60_000)).toBe(true);

      const email = await d.call('GET', `api/queues/${queueName}/history?range=24h&kind=email`);
      expect(email.body).toMatchObject({ range: '24h', kind: 'email', stepMs: 60_000 });
      expect(email.body.atMs).toHaveLength(1440);
      expect(sum(email.body.enqueued)).toBe(2);
      const fortnight = await d.call('GET', `api/queues/${queueName}/history?range=14d&kind=sms`);
      expect(fortnight.body).toMatchObject({ range: '14d', kind: 'sms', stepMs: 3_600_000 });
      expect(fortnight.body.atMs).toHaveLength(336);
      expect([sum(fortnight.body.enqueued), sum(fortnight.body.completed)]).toEqual([1, 0]);
      // The range defaults to the last hour.
      expect((await d.call('GET', `api/queues/${queueName}/history`)).body.range).toBe('1h');

      for (const query of ['range=7d', 'range=', 'range=1h&kind=no%20such', 'kind=%3Cscript%3E']) {
        const bad = await d.call('GET', `api/queues/${queueName}/history?${query}`);
        expect([bad.status, bad.body.error?.code], query).toEqual([400, 'bad_query']);
      }
      // Read-only: a POST is refused (the CSRF check comes first).
      expect([403, 405]).toContain((await d.call('POST', `api/queues/${queueName}/history`)).status);
      expect((await d.call('GET', 'api/queues/no-such-queue/history?range=1h')).status).toBe(404);
    } finally {
      await d.close();
    }
    await queue.close();
  });

  test('a source without the history capability answers 404, and a queue whose history is off answers empty columns', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('email', {});
    const { history: _h, ...source } = jobQueueSource([queue]);
    const bare = await startTestDashboard(undefined, { source });
    try {
      const answer = await bare.call('GET', `api/queues/${queueName}/history?range=1h`);
      expect([answer.status, answer.body.error?.code]).toEqual([404, 'no_capability']);
    } finally {
      await bare.close();
    }
    const d = await startTestDashboard([queue]);
    try {
      const off = await d.call('GET', `api/queues/${queueName}/history?range=24h`);
      expect(off.status).toBe(200);
      expect([off.body.kinds, sum(off.body.enqueued), off.body.runMsP99.every((p: number | null) => p === null)]).toEqual([[], 0, true]);
    } finally {
      await d.close();
    }
    await queue.close();
  });
});
