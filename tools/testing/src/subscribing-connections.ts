import { onEveryNode } from './on-every-node.ts';
import type { TestRedis } from './open-redis.ts';

/**
 * The connections in subscriber mode, as their counts of subscribed channels (`CLIENT LIST`'s
 * `sub=`), on the server or every node of a cluster, replicas too (a cluster client may
 * subscribe on any node). `named`: only connections whose line contains it (a cluster
 * client's subscriber carries the name inside a name of its own).
 */
export async function subscribingConnections(redis: TestRedis, named?: string): Promise<number[]> {
  const lists = await onEveryNode(redis, async (node) => String(await node.client('LIST')));
  return lists
    .flatMap((list) => list.split('\n'))
    .filter((line) => named === undefined || line.includes(named))
    .map((line) => Number(/ sub=(\d+)/.exec(line)?.[1] ?? 0))
    .filter((sub) => sub > 0);
}
