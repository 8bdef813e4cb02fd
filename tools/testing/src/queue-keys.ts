import type { TestRedis } from './open-redis.ts';
import { redisNodes } from './redis-nodes.ts';

/**
 * The keys of queue `queueName` (`queue:{NAME}:*`), and of its partitions if it is partitioned
 * (`queue:{NAME:p<i>}:*`), on one server.
 */
async function scanQueueKeys(node: TestRedis, queueName: string, each: (keys: string[]) => Promise<unknown>): Promise<void> {
  // Queue names are validated to hold no glob characters, and test queue names are unique
  // random strings, so the pattern matches this queue and its partitions only.
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', `queue:{${queueName}[}:]*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await each(keys);
  } while (cursor !== '0');
}

/**
 * Every key of queue `queueName` that exists, sorted: SCAN on the server, or on every master of
 * a cluster (the queue's keys share one slot, but which master holds it is the cluster's choice).
 * For "nothing was written" and "every key is gone" checks.
 */
export async function queueKeysIn(redis: TestRedis, queueName: string): Promise<string[]> {
  const found: string[] = [];
  for (const node of await redisNodes(redis)) {
    await scanQueueKeys(node, queueName, async (keys) => found.push(...keys));
  }
  return found.sort();
}

/** Deletes every key of queue `queueName` (and its partitions), on the server or on every master of a cluster. */
export async function deleteQueueKeys(redis: TestRedis, queueName: string): Promise<void> {
  for (const node of await redisNodes(redis)) {
    // One UNLINK per key: the partitions of a queue live in different slots.
    await scanQueueKeys(node, queueName, async (keys) => {
      const pipeline = node.pipeline();
      for (const key of keys) pipeline.unlink(key);
      await pipeline.exec();
    });
  }
}
