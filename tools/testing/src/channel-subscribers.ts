import { onEveryNode } from './on-every-node.ts';
import type { TestRedis } from './open-redis.ts';

/**
 * How many clients subscribe to each of `channels` (`PUBSUB NUMSUB`), in order: on a cluster,
 * summed over every node, since each node counts only the subscribers connected to it.
 */
export async function channelSubscribers(redis: TestRedis, channels: readonly string[]): Promise<number[]> {
  const perNode = await onEveryNode(redis, async (node) => (await node.pubsub('NUMSUB', ...channels)) as (string | number)[]);
  return channels.map((_, index) => perNode.reduce((sum, reply) => sum + Number(reply[index * 2 + 1]), 0));
}
