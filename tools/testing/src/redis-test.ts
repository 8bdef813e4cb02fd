import { randomBytes } from 'node:crypto';
import { inject, test } from 'vitest';
import { openRedis, type TestRedis } from './open-redis.ts';
import { deleteQueueKeys } from './queue-keys.ts';
import './provided-context.ts';

/** What {@link redisTest} gives each test. */
export interface RedisTestContext {
  /** URL of the run's Redis: `redis://…`, or `redis+cluster://…` on a cluster run. */
  redisUrl: string;
  /**
   * A connection of this test's own, closed after it: an ioredis `Redis`, or a `Cluster` on a
   * cluster run. Key commands work the same on both; for commands about one server use
   * `redisNodes(redis)`.
   */
  redis: TestRedis;
  /** A queue name no other test uses; its keys are deleted after the test. */
  queueName: string;
}

/** A queue name that no other test of any run shares. */
export function uniqueQueueName(label = 't'): string {
  return `${label}-${randomBytes(6).toString('hex')}`;
}

/**
 * `test` with a real Redis: `redis` is a fresh connection, `queueName` isolates the test, and
 * everything under the queue's keys is deleted afterwards (on every master of a cluster).
 */
export const redisTest = test.extend<RedisTestContext>({
  // eslint-disable-next-line no-empty-pattern
  redisUrl: async ({}, use) => {
    await use(inject('redisUrl'));
  },
  redis: async ({ redisUrl }, use) => {
    // Configured as @jobs configures its own connections: a command that gets no answer fails
    // after a while instead of hanging the test until its own timeout, which names no step.
    const redis = openRedis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 3, commandTimeout: 8_000 });
    await use(redis);
    redis.disconnect();
  },
  queueName: async ({ redis }, use) => {
    const name = uniqueQueueName();
    await use(name);
    await deleteQueueKeys(redis, name);
  },
});
