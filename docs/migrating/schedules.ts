import { createProducer } from '@jobs/producer';
import { kinds } from './kinds.js';

const producer = createProducer({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', queue: 'mail', kinds });

// queue.upsertJobScheduler('daily-digest', { pattern: '0 8 * * *', tz: 'Europe/Paris' }, { name: 'digest', data })
await producer.schedules.upsert({ id: 'daily-digest', kind: 'digest', payload: { team: 'ops' }, cron: '0 8 * * *', tz: 'Europe/Paris' });

// queue.upsertJobScheduler('heartbeat', { every: 30_000, limit: 100 }, { name: 'digest', data })
await producer.schedules.upsert({ id: 'heartbeat', kind: 'digest', payload: { team: 'sre' }, every: 30_000, limit: 100 });

// queue.getJobSchedulers(), queue.removeJobScheduler(id)
for (const schedule of await producer.schedules.list()) console.log(schedule.id, schedule.nextRunAt);
await producer.schedules.remove('heartbeat');
await producer.close();
