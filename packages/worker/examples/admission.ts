import { createProducer } from '@jobs/producer';
import { createWorker, defineKinds } from '@jobs/worker';

const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const kinds = defineKinds({
  report: { schema: { type: 'object', properties: { pages: { type: 'integer', minimum: 1 } }, required: ['pages'] }, priority: -10 },
  webhook: { schema: { type: 'object', properties: { url: { type: 'string', format: 'uri' } }, required: ['url'] } },
});
const producer = createProducer({ redis, queue: 'example-admission', kinds });

// Pause: stop the webhooks (their endpoint is down) before any worker starts one; enqueues go on.
await producer.pause({ kind: 'webhook' });
const hook = await producer.enqueue('webhook', { url: 'https://example.com/hook' });

// Priorities: -1000..1000, higher first, FIFO within one; `report` defaults to -10 (its kind's).
const slow = await producer.enqueue('report', { pages: 3 });
const urgent = await producer.enqueue('report', { pages: 1 }, { priority: 100 });

// Expiry (`ttlMs`, or `expiresAt`): a job not started by then never runs (failed, JOBS_EXPIRED).
const stale = await producer.enqueue('report', { pages: 9 }, { expiresAt: Date.now() - 1 });

const started: string[] = [];
const worker = createWorker({
  redis,
  queue: 'example-admission',
  kinds,
  handlers: {
    // Progress: stored on the job and heard by waitForResult's onProgress.
    report: async ({ pages }, ctx) => {
      started.push(ctx.id);
      for (let page = 1; page <= pages; page += 1) await ctx.progress({ page, of: pages });
      return { pages };
    },
    webhook: async ({ url }) => ({ posted: url }),
  },
});

const seen: unknown[] = [];
await producer.waitForResult(slow, { onProgress: (progress) => seen.push(progress) });
console.log(started[0] === urgent, seen.at(-1)); // true { page: 3, of: 3 }
console.log((await producer.getJob(stale))?.lastError?.split(':')[0]); // JOBS_EXPIRED
console.log((await producer.getJob(hook))?.status); // pending: its kind is paused
await producer.resume({ kind: 'webhook' });
console.log(await producer.waitForResult(hook)); // { posted: 'https://example.com/hook' }
await worker.close();
await producer.close();
