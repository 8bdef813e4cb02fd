import { defineKinds, type Batch, type PayloadTypesOf, type Queue, type RedisClient } from '@jobs/core';
import { waitFor } from '@jobs/testing';

export const batchKinds = defineKinds({
  email: { schema: { type: 'object', properties: { to: { type: 'string' } } } },
  report: { schema: { type: 'object', properties: { name: { type: 'string' } } } },
});

export type BatchQueue = Queue<PayloadTypesOf<typeof batchKinds>>;

/** The Redis clock, in ms. */
async function redisMs(redis: RedisClient): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** Resolves once the Redis clock is past `ms`: the next batch opened is newer than one opened at `ms`. */
export async function clockPast(redis: RedisClient, ms: number): Promise<void> {
  await waitFor(async () => (await redisMs(redis)) > ms, { what: 'the Redis clock to move on' });
}

/**
 * Three batches of `queue`, opened in this order, each a millisecond of Redis time after the one
 * before: `import-a`, open, with 3 emails (one completed, one failed for good, so its `onDeath`
 * fired; one pending) and an `onSuccess` not fired; `empty-b`, sealed with no job, so finished
 * at once and its `onComplete` fired; `sealed-c`, sealed with one pending email and no callback.
 */
export async function threeBatches(redis: RedisClient, queue: BatchQueue): Promise<{ importA: Batch<PayloadTypesOf<typeof batchKinds>> }> {
  const a = queue.batch({ id: 'import-a', onSuccess: { kind: 'report', payload: { name: 'a done' } }, onDeath: { kind: 'report', payload: { name: 'a failed' } } });
  await a.add([1, 2, 3].map((n) => ({ kind: 'email' as const, payload: { to: `user${n}@example.com` } })));
  const [first, second] = await queue.claim({ max: 2 });
  if (!first || !second) throw new Error('expected to claim two of the batch jobs');
  await queue.complete(first, 'sent');
  await queue.fail(second, new Error('bounced'), { permanent: true });
  await clockPast(redis, (await a.state())?.createdAtMs ?? 0);
  const b = queue.batch({ id: 'empty-b', onComplete: { kind: 'report', payload: { name: 'b complete' } } });
  const sealed = await b.seal();
  await clockPast(redis, sealed.createdAtMs);
  const c = queue.batch({ id: 'sealed-c' });
  await c.add([{ kind: 'email', payload: { to: 'last@example.com' } }]);
  await c.seal();
  return { importA: a };
}
