import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject, test } from 'vitest';
import './provided-context.ts';

/** What {@link redisTest} gives each test. */
export interface RedisTestContext {
  /** URL of the run's Redis. */
  redisUrl: string;
  /** A connection of this test's own, closed after it. */
  redis: Redis;
  /** A queue name no other test uses; its keys are deleted after the test. */
  queueName: string;
}

/** A queue name that no other test of any run shares. */
export function uniqueQueueName(label = 't'): string {
  return `${label}-${randomBytes(6).toString('hex')}`;
}

async function deleteQueueKeys(redis: Redis, queueName: string): Promise<void> {
  // Queue names are validated to hold no glob characters, so the pattern matches this queue only.
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `queue:{${queueName}}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.unlink(...keys);
  } while (cursor !== '0');
}

/**
 * `test` with a real Redis: `redis` is a fresh connection, `queueName` isolates the test, and
 * everything under the queue's keys is deleted afterwards.
 */
export const redisTest = test.extend<RedisTestContext>({
  // eslint-disable-next-line no-empty-pattern
  redisUrl: async ({}, use) => {
    await use(inject('redisUrl'));
  },
  redis: async ({ redisUrl }, use) => {
    const redis = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3 });
    await use(redis);
    redis.disconnect();
  },
  queueName: async ({ redis }, use) => {
    const name = uniqueQueueName();
    await use(name);
    await deleteQueueKeys(redis, name);
  },
});
