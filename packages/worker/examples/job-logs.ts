import { createProducer } from '@jobs/producer';
import { createWorker, defineKinds } from '@jobs/worker';

const kinds = defineKinds({
  email: {
    schema: { type: 'object', properties: { recipient: { type: 'string' } }, required: ['recipient'], additionalProperties: false },
    maxAttempts: 2,
    backoff: { type: 'fixed', delayMs: 0 },
  },
});
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const worker = createWorker({
  redis,
  queue: 'example-job-logs',
  kinds,
  workerId: 'mail-1',
  jobLogs: { lines: 200, lineBytes: 1_024 }, // the default caps
  handlers: {
    email: async (payload, ctx) => {
      // Stored with the job (batched, sent before the outcome, under the same claim).
      ctx.log('sending to %s, attempt %d', payload.recipient, ctx.attempt);
      throw Object.assign(new Error('mailbox full', { cause: new Error('552 5.2.2') }), { code: 'MAILBOX_FULL' });
    },
  },
});
const failed = new Promise<string>((resolve) => worker.on('failed', ({ job }) => resolve(job.id)));
const producer = createProducer({ redis, queue: 'example-job-logs', kinds });
await producer.enqueue('email', { recipient: 'alice@example.com' });
const id = await failed; // retried once, then dead-lettered

// What an operator (or the dashboard's job page) reads back.
const attempts = await producer.attempts(id);
const logs = await producer.logs(id);
console.log(
  attempts?.entries.map((a) => `#${a.attempt} ${a.outcome} on ${a.workerId}: ${a.error?.code} ${a.error?.message}`),
  logs?.lines.map((l) => l.line),
);
await Promise.all([worker.close(), producer.close()]);
