import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { isClusterUrl, parseClusterUrl } from './cluster-url.ts';

/**
 * A raw ioredis connection to a test run's Redis: a `Redis` for a server, or a `Cluster` for
 * either kind of test run. Both have every command method, and keys route by slot on a cluster;
 * what differs is commands about one server (`SCAN`, `KEYS`, `CLIENT LIST`, `CONFIG`, `ACL`,
 * `SCRIPT FLUSH`): a `Cluster` sends them to any one node. Use `redisNodes` (every master) or
 * `onEveryNode` (replicas too) for those.
 */
export type TestRedis = Redis | Cluster;

/**
 * ioredis connection options (`replyMapping` left out: ioredis's constructors refuse its own
 * `RedisOptions` type with it under `exactOptionalPropertyTypes`).
 */
export type OpenRedisOptions = Omit<RedisOptions, 'replyMapping'>;

/**
 * Opens a connection of the test's own to `url`, the run's `redisUrl`: an ioredis `Redis` for
 * `redis://` and `rediss://`, an ioredis `Cluster` built from the seeds of `redis+cluster://`.
 * `options` apply to each connection (on a cluster, to every node's). The caller closes it.
 */
export function openRedis(url: string, options: OpenRedisOptions = {}): TestRedis {
  if (!isClusterUrl(url)) return new Redis(url, options);
  const { seeds, username, password, tls } = parseClusterUrl(url);
  const redisOptions: OpenRedisOptions = { ...options };
  if (username !== undefined) redisOptions.username = username;
  if (password !== undefined) redisOptions.password = password;
  if (tls) redisOptions.tls = {};
  return new Cluster(seeds, {
    redisOptions,
    // As @jobs itself does: follow a moved slot or a failover for a while.
    maxRedirections: 32,
    retryDelayOnClusterDown: 200,
    retryDelayOnFailover: 200,
    ...(options.lazyConnect === undefined ? {} : { lazyConnect: options.lazyConnect }),
  });
}
