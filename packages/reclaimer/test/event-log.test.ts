import { defineKinds, Queue } from '@jobs/core';
import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createReclaimer } from '../src/index.ts';
import { daemonConfig } from '../src/daemon-config.ts';

const kinds = defineKinds({ task: { schema: { type: 'object' } } });

describe('the reclaimer and the event log', () => {
  test('with eventLog on, its reclaims are logged under its id; off, they are not', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, eventLog: true, workerId: 'w', visibilityMs: 20 });
    const id = await queue.enqueue('task', {});
    await queue.claim();
    const quiet = createReclaimer({ redis, queues: [queueName] });
    const logged = createReclaimer({ redis, queues: [queueName], eventLog: true, workerId: 'sweeper-1' });
    // The first sweep that finds the lease expired handles it; run the logging one until it does.
    await waitFor(async () => ((await logged.runOnce())[0]?.reclaimed ?? 0) > 0, { what: 'the reclaim' });
    await quiet.runOnce();
    const events = (await queue.timeline(id))?.events.map((e) => `${e.event} ${e.worker ?? ''} ${e.code ?? ''}`.trim());
    expect(events).toEqual(['enqueued', 'claimed w', 'reclaimed sweeper-1 LEASE_EXPIRED']);
    await Promise.all([quiet.stop(), logged.stop(), queue.close()]);
  });

  test('jobs-reclaimer --event-log (or JOBS_EVENT_LOG) takes on or a cap; off by default', () => {
    expect(daemonConfig({}, {}).eventLog).toBe(false);
    expect(daemonConfig({ eventLog: 'on' }, {}).eventLog).toEqual({ maxLen: 100_000 });
    expect(daemonConfig({}, { JOBS_EVENT_LOG: '5000' }).eventLog).toEqual({ maxLen: 5_000 });
    expect(() => daemonConfig({ eventLog: '3' }, {})).toThrow(/--event-log/);
  });
});
