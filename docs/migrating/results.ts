import { Redis } from 'ioredis';
import { createProducer, isJobsError } from '@jobs/producer';
import { kinds } from './kinds.js';

const producer = createProducer({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', queue: 'mail', kinds });

// const job = await queue.add(...); await job.waitUntilFinished(queueEvents, 10_000)
const id = await producer.enqueue('report', { month: '2026-11' });
try {
  const result = await producer.waitForResult(id, { timeoutMs: 10_000, onProgress: (progress) => console.log(progress) });
  console.log(result);
} catch (error) {
  if (isJobsError(error, 'JOBS_JOB_FAILED')) console.error(error.status, error.lastError); // failed for good, or cancelled
  else if (isJobsError(error, 'JOBS_TIMEOUT')) console.error('still running');
  else throw error;
}

// new QueueEvents('mail').on('completed', ...): every job's changes. Here: the recipe's pub/sub
// channel, one small JSON message per change. Pub/sub keeps nothing: a subscriber that is away misses events.
type QueueEvent = { id: string; status: 'processing' | 'completed' | 'failed' | 'retry' | 'reclaimed' | 'released' | 'cancelled'; progress?: unknown };
const subscriber = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
subscriber.on('message', (_channel: string, message: string) => {
  const event = JSON.parse(message) as QueueEvent;
  if (event.status === 'failed') console.error(`job ${event.id} failed for good`);
});
await subscriber.subscribe('queue:{mail}:events');
