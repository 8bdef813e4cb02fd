import { createProducer } from '@jobs/producer';
import { createWorker, defineKinds } from '@jobs/worker';

const kinds = defineKinds({
  crawl: { schema: { type: 'object', properties: { pages: { type: 'integer' } }, required: ['pages'] }, backoff: { type: 'fixed', delayMs: 10 } },
  report: { schema: { type: 'object' } },
  render: { schema: { type: 'object' } },
});
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const producer = createProducer({ redis, queue: 'example-running', kinds });

let networkDown = true;
let dataLanded = false;
const crawled: number[] = [];
let renderStarted: () => void = () => undefined;
const rendering = new Promise<void>((resolve) => (renderStarted = resolve));
const worker = createWorker({
  redis,
  queue: 'example-running',
  kinds,
  concurrency: 4,
  handlers: {
    // Resumes where the last attempt stopped: the checkpoint survives a crash, a deploy or a retry.
    crawl: async ({ pages }, ctx) => {
      const { done = 0 } = ((await ctx.checkpointed()) ?? {}) as { done?: number };
      for (let page = done + 1; page <= pages; page++) {
        if (page === 3 && networkDown) {
          networkDown = false;
          throw new Error('network down');
        }
        crawled.push(page);
        await ctx.checkpoint({ done: page });
      }
      return { pages, attempt: ctx.attempt };
    },
    // Not ready yet: wait without spending an attempt.
    report: async (_payload, ctx) => {
      if (!dataLanded) {
        dataLanded = true;
        return ctx.snooze(50);
      }
      return { attempt: ctx.attempt };
    },
    // Runs until it is cancelled, from this process or any other.
    render: (_payload, { signal }) => {
      renderStarted();
      return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    },
  },
});
const cancelled = new Promise<string>((resolve) => worker.on('cancelled', ({ job }) => resolve(job.id)));

const crawl = await producer.enqueue('crawl', { pages: 4 });
console.log(await producer.waitForResult(crawl), crawled); // { pages: 4, attempt: 2 } [ 1, 2, 3, 4 ]: pages 1 and 2 ran once
const report = await producer.enqueue('report', {});
console.log(await producer.waitForResult(report), (await producer.stats()).snoozedTotal); // { attempt: 1 } 1
const render = await producer.enqueue('render', {});
await rendering;
console.log(await producer.cancel(render), (await cancelled) === render); // { cancelled: true, wasRunning: true } true
await Promise.all([worker.close(), producer.close()]);
