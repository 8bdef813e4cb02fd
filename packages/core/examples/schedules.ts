import { defineKinds, Queue, RedisScheduleStore, ScheduleRunner } from '@jobs/core';

const kinds = defineKinds({
  digest: { schema: { type: 'object', properties: { team: { type: 'string' } }, required: ['team'], additionalProperties: false } },
});
const queue = new Queue({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', queue: 'example-schedules', kinds });

// Every day at 08:00 in Paris (DST included), and a second one every second (6 fields: seconds first).
// Each tick's job is enqueued as `enqueue` would, with the schedule's job options.
await queue.schedules.upsert({ id: 'daily-digest', kind: 'digest', payload: { team: 'ops' }, cron: '0 8 * * *', tz: 'Europe/Paris', options: { priority: 5, ttlMs: 3_600_000 } });
await queue.schedules.upsert({ id: 'heartbeat', kind: 'digest', payload: { team: 'sre' }, cron: '* * * * * *', limit: 1 });

// Workers and the reclaimer daemon run this for you; any number of them, one job per tick.
const runner = new ScheduleRunner({ store: new RedisScheduleStore(queue.client, queue.keys) });
runner.start();
const [job] = await queue.claim({ blockMs: 3_000 });   // the heartbeat's one tick: sched:heartbeat:<tick ms>
if (job) await queue.complete(job, 'sent');
await runner.stop();

for (const s of await queue.schedules.list()) console.log(s.id, s.status, s.nextRunAt && new Date(s.nextRunAt).toISOString());
await queue.schedules.remove('daily-digest');
await queue.schedules.remove('heartbeat');
console.log(job?.id);
await queue.close();
