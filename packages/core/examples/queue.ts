import { defineKinds, isJobsError, Queue } from '@jobs/core';

const kinds = defineKinds({
  email: {
    schema: {
      type: 'object',
      properties: { recipient: { type: 'string', format: 'email' }, subject: { type: 'string' } },
      required: ['recipient'],
      additionalProperties: false,
    },
    maxAttempts: 5,
    backoff: { type: 'exponential', delayMs: 1_000, maxDelayMs: 60_000, jitter: 0.2 },
  },
});

const queue = new Queue({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', queue: 'example-core', kinds });

// Typed from the schema: a missing recipient, or a kind that does not exist, does not compile.
const id = await queue.enqueue('email', { recipient: 'alice@example.com' }, { idempotencyKey: 'welcome:alice' });

// Claim (waiting up to 1 s in Redis), work, acknowledge.
for (const job of await queue.claim({ max: 10, blockMs: 1_000 })) {
  try {
    await queue.complete(job, { sentAt: new Date().toISOString() });
  } catch (error) {
    if (isJobsError(error, 'JOBS_LOST_CLAIM')) continue; // reclaimed meanwhile: someone else runs it
    await queue.fail(job, error);                          // retried after backoff, or dead-lettered
  }
}

await queue.reclaimStuck();        // returns expired leases to pending (run it on a schedule)
console.log(await queue.stats(), id);
await queue.close();