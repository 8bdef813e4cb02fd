import { createProducer, defineKinds, isJobsError } from '@jobs/producer';

// Define each kind once, with a JSON schema; payload types are inferred from it.
export const kinds = defineKinds({
  email: {
    schema: {
      type: 'object',
      properties: { recipient: { type: 'string', format: 'email' }, subject: { type: 'string', maxLength: 200 } },
      required: ['recipient'],
      additionalProperties: false,
    },
    maxAttempts: 5,
  },
  invoice: {
    schema: {
      type: 'object',
      properties: { customerId: { type: 'string' }, amountCents: { type: 'integer', minimum: 1 } },
      required: ['customerId', 'amountCents'],
      additionalProperties: false,
    },
  },
});

const producer = createProducer({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', queue: 'example-mail', kinds });

// One round trip; the id comes back at once.
const id = await producer.enqueue('email', { recipient: 'alice@example.com', subject: 'Welcome' });

// Later, once, and only once per key for a day: a retried request does not enqueue twice.
await producer.enqueue('invoice', { customerId: 'cus_42', amountCents: 1999 }, { delayMs: 60_000, idempotencyKey: 'invoice:cus_42:2026-11' });

// Many in one round trip, all validated before any is written.
await producer.enqueueMany([
  { kind: 'email', payload: { recipient: 'bob@example.com' } },
  { kind: 'email', payload: { recipient: 'carol@example.com' } },
]);

// Bad input is a typed error, and nothing is written.
try {
  await producer.enqueue('email', { recipient: 'not an address' });
} catch (error) {
  if (isJobsError(error, 'JOBS_VALIDATION')) console.log(error.issues); // [{ pointer: '/recipient', ... }]
}

console.log(await producer.getJob(id)); // { id, status: 'pending', kind: 'email', payload: {...}, ... }
// With a worker running: const result = await producer.waitForResult(id, { timeoutMs: 10_000 });
await producer.close();
