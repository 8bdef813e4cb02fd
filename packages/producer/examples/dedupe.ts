import { createProducer, defineKinds } from '@jobs/producer';

const kinds = defineKinds({
  'order-sync': {
    schema: {
      type: 'object',
      properties: { orderId: { type: 'string' }, status: { type: 'string' } },
      required: ['orderId', 'status'],
      additionalProperties: false,
    },
  },
  report: {
    schema: { type: 'object', properties: { day: { type: 'string' } }, required: ['day'], additionalProperties: false },
  },
});

const producer = createProducer({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', queue: 'example-dedupe', kinds });

// A burst of webhooks for one order becomes one job with the latest data: each one waits 2 s
// more for quiet, but the job starts at most 10 s after the first.
const debounce = { dedupe: { key: 'order-42', mode: 'debounce', ttlMs: 2_000, maxWaitMs: 10_000 } } as const;
const results = await producer.enqueueMany([
  { kind: 'order-sync', payload: { orderId: '42', status: 'paid' }, options: debounce },
  { kind: 'order-sync', payload: { orderId: '42', status: 'packed' }, options: debounce },
  { kind: 'order-sync', payload: { orderId: '42', status: 'shipped' }, options: debounce },
]);
console.log(results.map((r) => r.heldBy ?? 'created')); // [ 'created', 'dedupe', 'dedupe' ]
const job = await producer.getJob(results[0]?.id ?? '');
console.log(job?.status, (job?.payload as { status: string }).status); // delayed shipped

// One report per day, whatever became of the first: a second enqueue answers with its id.
const daily = { unique: { key: 'report:2026-12-02', states: ['waiting', 'running', 'completed'], periodMs: 86_400_000 } } as const;
const first = await producer.enqueue('report', { day: '2026-12-02' }, daily);
const again = await producer.enqueue('report', { day: '2026-12-02' }, daily);
console.log(again === first); // true

await producer.close();
