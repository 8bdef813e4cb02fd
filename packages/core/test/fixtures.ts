import { redisNodes, waitFor, type TestRedis } from '@jobs/testing';
import { expect } from 'vitest';
import { defineKinds, Queue, type JobWhy, type Partition, type PayloadTypesOf, type QueueOptions, type RedisClient, type WhyReason, type WhyReasonCode } from '../src/index.ts';

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

/** A Queue on the test's Redis and queue name; closed by the caller. */
export function openQueue(redis: RedisClient, queueName: string, options: QueueOptions = {}): Queue<PayloadTypesOf<typeof kinds>> {
  return new Queue({ redis, queue: queueName, kinds, ...options });
}

/**
 * Resolves once a connection named `name` is blocked in BLMOVE (CLIENT LIST shows it, on the
 * server or on one of the cluster's masters), so a test knows the claim is waiting in Redis
 * before it enqueues.
 */
export async function waitUntilBlocked(redis: TestRedis, name: string): Promise<void> {
  const nodes = await redisNodes(redis);
  const blocked = async (node: TestRedis): Promise<boolean> =>
    String(await node.client('LIST')).split('\n').some((line: string) => line.includes(`name=${name} `) && line.includes('cmd=blmove'));
  await waitFor(async () => (await Promise.all(nodes.map(blocked))).includes(true), { what: `${name} blocked in BLMOVE` });
}

/** The reason of `code` in a `why` answer, which must have one. */
export function reason<C extends WhyReasonCode>(answer: JobWhy | null, code: C): Extract<WhyReason, { code: C }> {
  const found = answer?.reasons.find((r) => r.code === code);
  expect(found, `${code} in ${JSON.stringify(answer)}`).toBeDefined();
  return found as Extract<WhyReason, { code: C }>;
}

/** The partition of a plain queue: where the worker's verbs (snooze, checkpoint, handOff) live. */
export function soleOf<P>(queue: { partitions: readonly Partition<P>[] }): Partition<P> {
  return queue.partitions[0] as Partition<P>;
}
