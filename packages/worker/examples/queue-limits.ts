import { createProducer } from '@jobs/producer';
import { createWorker, defineKinds } from '@jobs/worker';

const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const kinds = defineKinds({
  embed: { schema: { type: 'object', properties: { texts: { type: 'integer' } }, required: ['texts'] } },
});
const producer = createProducer({ redis, queue: 'example-queue-limits', kinds });

await producer.setLimits({
  concurrency: 3, // at most 3 jobs of the queue running at once, across every worker
  rate: { max: 20, windowMs: 1_000, spread: true }, // 20/s, one start every 50 ms, not 20 at once
});

// A batch of 4 texts costs 4 of the rate limit: the next start waits 4 intervals.
const ids = [await producer.enqueue('embed', { texts: 4 }, { cost: 4 })];
for (let n = 0; n < 8; n += 1) ids.push(await producer.enqueue('embed', { texts: 1 }));

let running = 0;
let most = 0;
const worker = createWorker({
  redis,
  queue: 'example-queue-limits',
  kinds,
  concurrency: 10,
  handlers: {
    embed: async ({ texts }) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 200));
      running -= 1;
      return { embedded: texts };
    },
  },
});

await Promise.all(ids.map((id) => producer.waitForResult(id)));
const starts = (await Promise.all(ids.map((id) => producer.getJob(id)))).map((job) => job?.claimedAtMs ?? 0);
const gaps = starts.slice(1).map((at, n) => at - (starts[n] ?? 0));
console.log(most <= 3); // true: the queue's cap held, though the worker has 10 slots
console.log((gaps[0] ?? 0) >= 200, gaps.every((gap) => gap >= 50)); // true true: the batch took 4 intervals, then one start per 50 ms at most
console.log((await producer.limits()).rate); // { max: 20, windowMs: 1000, spread: true, burst: 1 }
await producer.setLimits({});
await worker.close();
await producer.close();
