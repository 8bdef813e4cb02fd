import { closeOnSignals, createWorker, defineKinds, PermanentError } from '@jobs/worker';

// The same kinds as the producers' (share the module).
export const kinds = defineKinds({
  email: {
    schema: {
      type: 'object',
      properties: { recipient: { type: 'string', format: 'email' }, subject: { type: 'string', maxLength: 200 } },
      required: ['recipient'],
      additionalProperties: false,
    },
    maxAttempts: 5,
    backoff: { type: 'exponential', delayMs: 1_000, maxDelayMs: 60_000, jitter: 0.2 },
  },
  invoice: {
    schema: {
      type: 'object',
      properties: { customerId: { type: 'string' }, amountCents: { type: 'integer', minimum: 1 } },
      required: ['customerId', 'amountCents'],
      additionalProperties: false,
    },
    timeoutMs: 30_000,
  },
});

export const worker = createWorker({
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  queue: 'example-mail',
  kinds,
  concurrency: 16,
  visibilityMs: 10_000, // renewed while a handler runs; a crashed worker's jobs return within ~10 s
  handlers: {
    // Payload types come from the schemas: `recipient` is a string here.
    email: async ({ recipient, subject }, { attempt, signal }) => {
      signal.throwIfAborted();
      return { sentTo: recipient, subject: subject ?? '(none)', attempt };
    },
    invoice: async ({ customerId, amountCents }) => {
      if (!customerId.startsWith('cus_')) throw new PermanentError(`no such customer: ${customerId}`);
      return { charged: amountCents };
    },
  },
});

worker.on('failed', ({ job, error }) => console.error(`job ${job.id} failed for good:`, error));
closeOnSignals(worker, { graceMs: 10_000 }); // SIGTERM/SIGINT: finish or hand back running jobs, then exit
await worker.ready(); // connected, listening and claiming: the moment to report the service healthy
