import { createProducer } from '@jobs/producer';
import { createWorker, defineKinds } from '@jobs/worker';

const kinds = defineKinds({
  thumbnail: {
    schema: { type: 'object', properties: { image: { type: 'string' }, width: { type: 'integer', minimum: 1 } }, required: ['image', 'width'], additionalProperties: false },
    timeoutMs: 30_000, // past it the child's signal aborts, and the child is ended graceMs later
  },
});
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const producer = createProducer({ redis, queue: 'example-isolated', kinds });

const worker = createWorker({
  redis,
  queue: 'example-isolated',
  kinds,
  concurrency: 4,
  handlers: {
    // Two child processes run the resizes, one job each at a time: this process stays free to renew leases.
    thumbnail: { isolate: 'process', module: new URL('./thumbnail.js', import.meta.url), pool: 2, memoryMb: 256, graceMs: 1_000 },
  },
});

const images = ['cat.png', 'dog.png', 'owl.png', 'cat.gif'];
const ids = (await producer.enqueueMany(images.map((image) => ({ kind: 'thumbnail' as const, payload: { image, width: 64 } })))).map((job) => job.id);
const outcomes = await Promise.all(ids.map((id) => producer.waitForResult(id).catch((error: { lastError?: string }) => error.lastError)));
const first = outcomes[0] as { width: number; pid: number };
console.log(first.width, first.pid !== process.pid); // 64 true: resized in a child process
console.log(outcomes[3]); // PermanentError: not a PNG: cat.gif (thrown in the child, failed for good here)
await Promise.all([worker.close(), producer.close()]);
