import { Cluster, type Redis } from 'ioredis';
import type { TestRedis } from './open-redis.ts';

/**
 * The servers behind `redis`, for commands about one server (`SCAN`, `CLIENT LIST`, `CONFIG`,
 * `ACL`, `SCRIPT FLUSH`): `[redis]` itself for one server; for a cluster, a connection to each
 * master (`role` `master`, the default: where every key lives) or to every node (`all`, replicas
 * too: what an `ACL SETUSER` must reach, since a cluster does not share its users). The
 * connections belong to `redis`: do not close them.
 */
export async function redisNodes(redis: TestRedis, role: 'master' | 'all' = 'master'): Promise<Redis[]> {
  if (!(redis instanceof Cluster)) return [redis];
  // The node list is filled in once the client has read the slot map: wait for that.
  if (redis.status !== 'ready') await redis.ping();
  return redis.nodes(role);
}
