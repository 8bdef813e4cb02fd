import { createProducer } from '@jobs/producer';
import { createWorker, defineKinds, RateLimitedError } from '@jobs/worker';

const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const kinds = defineKinds({
  sms: { schema: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] } },
  invoice: { schema: { type: 'object', properties: { customer: { type: 'string' } }, required: ['customer'] } },
});
const producer = createProducer({ redis, queue: 'example-limits', kinds });

// Limits live in Redis: every worker of the queue obeys them from its next claim.
await producer.setLimits({
  kinds: { sms: { rate: { max: 5, windowMs: 1_000 }, concurrency: 2 } }, // the gateway allows 5/s, 2 at once
  groups: { concurrency: 1 }, // one invoice at a time per customer
});

// Groups: an optional key per job (a customer, a tenant); groups take fair turns.
const invoices = await Promise.all(['acme', 'acme', 'globex'].map((customer) => producer.enqueue('invoice', { customer }, { group: customer })));
const texts = await Promise.all(Array.from({ length: 10 }, (_, n) => producer.enqueue('sms', { to: `+1555000${n}` })));

let pushedBack = false;
const worker = createWorker({
  redis,
  queue: 'example-limits',
  kinds,
  concurrency: 10,
  handlers: {
    // The gateway answered 429: no worker claims `sms` for 300 ms, and the job goes back to the
    // front of the queue without using up an attempt.
    sms: async ({ to }) => {
      if (!pushedBack) {
        pushedBack = true;
        throw new RateLimitedError(300);
      }
      return { sent: to };
    },
    invoice: async ({ customer }) => ({ billed: customer }),
  },
});

await Promise.all([...invoices, ...texts].map((id) => producer.waitForResult(id)));
const sent = await Promise.all(texts.map((id) => producer.getJob(id)));
const starts = sent.map((job) => job?.claimedAtMs ?? 0).sort((a, b) => a - b);
console.log(sent.every((job) => job?.attempts === 1)); // true: the pushback used no attempt
console.log((starts.at(-1) ?? 0) - (starts[0] ?? 0) >= 1_000); // true: 11 starts at 5/s take over a second
console.log((await producer.stats()).rateLimitedTotal); // 1
await producer.setLimits({}); // no limits any more
await worker.close();
await producer.close();
