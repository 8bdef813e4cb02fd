import { waitFor } from '@jobs/testing';
import type { Redis } from 'ioredis';
import { defineKinds, JobQueue, type PayloadTypesOf, type QueueOptions } from '../src/index.ts';

/** The demo's four kinds, with real schemas. */
export const kinds = defineKinds({
  email: {
    schema: {
      type: 'object',
      properties: {
        recipient: { type: 'string', format: 'email' },
        subject: { type: 'string', maxLength: 200 },
        n: { type: 'integer', minimum: 0 },
      },
      required: ['recipient'],
      additionalProperties: false,
    },
  },
  webhook: {
    schema: {
      type: 'object',
      properties: { url: { type: 'string', format: 'uri' }, body: { type: 'object' } },
      required: ['url'],
      additionalProperties: false,
    },
    maxAttempts: 5,
    backoff: { type: 'fixed', delayMs: 200 },
  },
  thumbnail: {
    schema: {
      type: 'object',
      properties: { image: { type: 'string' }, width: { type: 'integer', minimum: 1, maximum: 4096 } },
      required: ['image', 'width'],
    },
    visibilityMs: 120_000,
  },
});

/** A JobQueue on the test's Redis and queue name; closed by the caller. */
export function openQueue(redis: Redis, queueName: string, options: QueueOptions = {}): JobQueue<PayloadTypesOf<typeof kinds>> {
  return new JobQueue({ redis, queue: queueName, kinds, ...options });
}

/**
 * Resolves once a connection named `name` is blocked in BLMOVE (CLIENT LIST shows it), so a
 * test knows the claim is waiting in Redis before it enqueues.
 */
export async function waitUntilBlocked(redis: Redis, name: string): Promise<void> {
  await waitFor(async () => String(await redis.client('LIST')).split('\n').some((line: string) => line.includes(`name=${name} `) && line.includes('cmd=blmove')), {
    what: `${name} blocked in BLMOVE`,
  });
}

/** Every key of a queue that exists, for "nothing was written" checks. */
export async function queueKeysInRedis(redis: Redis, queueName: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `queue:{${queueName}}:*`, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found.sort();
}
