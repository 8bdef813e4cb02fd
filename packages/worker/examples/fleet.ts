import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { createWorker, defineKinds } from '@jobs/worker';

const kinds = defineKinds({
  resize: { schema: { type: 'object', properties: { width: { type: 'integer' } }, required: ['width'] } },
});
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const producer = createProducer({ redis, queue: 'example-fleet', kinds });
// What a deploy script (or jobsctl) holds: the queue, to tell its workers.
const fleet = new Queue({ redis, queue: 'example-fleet', kinds });

const worker = createWorker({
  redis,
  queue: 'example-fleet',
  kinds,
  concurrency: 2,
  heartbeatIntervalMs: 200, // orders reach workers through the registry their heartbeats keep
  handlers: { resize: async ({ width }) => ({ width }) },
});
await worker.ready();

// Before a deploy: every worker alive now stops claiming (jobsctl quiet -q example-fleet).
const { told } = await fleet.quietWorkers();
console.log(told.length); // 1
// The drain is done once each says quiet and runs nothing.
while (!(await fleet.workers()).every((w) => w.quiet && w.runningCount === 0)) await sleep(50);
const id = await producer.enqueue('resize', { width: 640 });
console.log((await producer.getJob(id))?.status); // pending: no quiet worker takes it

// Claim again (jobsctl resume-workers -q example-fleet), and change the concurrency at run time.
await fleet.resumeWorkers();
console.log(await producer.waitForResult(id)); // { width: 640 }
await fleet.scaleWorkers({ concurrency: 8 }); // jobsctl scale -q example-fleet --concurrency 8
while ((await fleet.workers())[0]?.concurrency !== 8) await sleep(50);
console.log(worker.concurrency); // 8
worker.setConcurrency(4); // the same from the worker's own code
console.log(worker.concurrency); // 4
await Promise.all([worker.close(), producer.close(), fleet.close()]);
