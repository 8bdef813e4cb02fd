import { createProducer } from '@jobs/producer';
import { kinds } from './kinds.js';

// new Queue('mail', { connection }): a URL, ioredis options, or an ioredis client you own.
const producer = createProducer({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', queue: 'mail', kinds });

// queue.add('welcome', data, { delay: 60_000, jobId: 'welcome:u_1' })
const id = await producer.enqueue('welcome', { userId: 'u_1' }, { delayMs: 60_000, idempotencyKey: 'welcome:u_1' });

// queue.add('report', data, { attempts: 1, delay: <ms until 06:00> }): options per job
await producer.enqueue('report', { month: '2026-11' }, { maxAttempts: 1, runAt: new Date('2026-12-01T06:00:00Z') });

// queue.add('report', data, { priority: 1 }): here higher runs first, from -1000 to 1000
await producer.enqueue('report', { month: '2026-10' }, { priority: 100 });

// queue.addBulk([...]): one round trip; every payload is checked before any job is written
await producer.enqueueMany([
  { kind: 'welcome', payload: { userId: 'u_2', locale: 'fr' } },
  { kind: 'welcome', payload: { userId: 'u_3' } },
]);

// queue.pause() and queue.resume(); here also for one kind, the rest of the queue going on
await producer.pause({ kind: 'report' });
await producer.resume({ kind: 'report' });

// queue.getJob(id), job.remove() (here: only while the job waits), queue.getJobCounts()
const job = await producer.getJob(id);
const outcome = await producer.cancel(id);
const stats = await producer.stats();
console.log(job?.status, outcome.cancelled, stats.pendingDepth, stats.delayedDepth, stats.failedDepth);

await producer.close();
