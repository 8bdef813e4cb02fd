import { defineKinds, Queue } from '@jobs/core';
import { startRedisServer } from '@jobs/dev-redis';
import { isClusterRun, subscribingConnections, waitFor } from '@jobs/testing';
import { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { createReclaimer } from '../src/index.ts';

const kinds = defineKinds({ tick: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } });

// On a redis-server of its own, so that CLIENT LIST shows this daemon's connections alone; a
// cluster run would repeat it as it is.
describe.skipIf(isClusterRun())('schedules in the reclaimer daemon', () => {
  test("a daemon serving three queues runs each queue's schedule, and hears their wakes on one pub/sub connection", async () => {
    const server = await startRedisServer({ name: 'reclaimer-schedules' });
    const admin = new Redis(server.url);
    const names = ['mail', 'hooks', 'thumbs'];
    const queues = names.map((name) => new Queue({ redis: server.url, queue: name, kinds }));
    const reclaimer = createReclaimer({ redis: server.url, queues: names, intervalMs: 200 });
    reclaimer.start();
    try {
      for (const queue of queues) await queue.schedules.upsert({ id: 'every-second', kind: 'tick', payload: { n: 1 }, every: 1_000 });
      // Each schedule's first tick became a job on its queue.
      for (const queue of queues) {
        await waitFor(async () => (await queue.list('pending')).some((job) => job.id.startsWith('sched:every-second:')), { what: `a tick of ${queue.name}`, timeoutMs: 15_000 });
      }
      expect(await subscribingConnections(admin)).toEqual([3]);
    } finally {
      await reclaimer.stop();
      for (const queue of queues) await queue.close();
      admin.disconnect();
      await server.stop();
    }
  });
});
