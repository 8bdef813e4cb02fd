import { Cluster, Redis } from 'ioredis';
import type { TestRedis } from './open-redis.ts';

/**
 * Runs `task` on the server behind `redis`, or on every node of a cluster, masters and replicas
 * (each over a connection of its own, closed after): for what a cluster does not share between
 * its nodes, such as `ACL SETUSER` and `ACL DELUSER`.
 */
export async function onEveryNode<T>(redis: TestRedis, task: (node: Redis) => Promise<T>): Promise<T[]> {
  if (!(redis instanceof Cluster)) return [await task(redis)];
  // CLUSTER NODES, not SLOTS: SLOTS leaves out replicas that have no replication offset yet
  // (a fresh cluster's). Each line reads `<id> <host:port@busport[,hostname]> <flags> ...`.
  const addresses: { host: string; port: number }[] = [];
  for (const line of String(await redis.cluster('NODES')).split('\n')) {
    const [, address, flags] = line.split(' ');
    const match = /^(.*):(\d+)@/.exec(address ?? '');
    if (match === null || /(^|,)(fail|noaddr|handshake)(,|$)/.test(flags ?? '')) continue;
    addresses.push({ host: match[1] as string, port: Number(match[2]) });
  }
  const { username, password, tls } = redis.options.redisOptions ?? {};
  const results: T[] = [];
  for (const { host, port } of addresses) {
    const node = new Redis({ host, port, ...(username !== undefined && { username }), ...(password !== undefined && { password }), ...(tls !== undefined && { tls }) });
    try {
      results.push(await task(node));
    } finally {
      node.disconnect();
    }
  }
  return results;
}
