import { Cluster, type Redis } from 'ioredis';
import type { TestRedis } from './open-redis.ts';

/**
 * The servers that hold the data behind `redis`, for commands about one server (`SCAN`, `CLIENT
 * LIST`, `CONFIG`, `SLOWLOG`, `SCRIPT FLUSH`): `[redis]` itself for one server, a connection to
 * each master for a cluster. The connections belong to `redis`: do not close them. (A cluster
 * client keeps none to replicas; see `onEveryNode` for what must reach them too.)
 */
export async function redisNodes(redis: TestRedis): Promise<Redis[]> {
  if (!(redis instanceof Cluster)) return [redis];
  // The node list is filled in once the client has read the slot map: wait for that.
  if (redis.status !== 'ready') await redis.ping();
  return redis.nodes('master');
}
