import { Cluster, Redis, type ClusterNode, type ClusterOptions, type RedisOptions } from 'ioredis';
import { boundQueuedCommands } from './cluster-queued-commands.ts';
import { stripCommandArgs, withRedisErrors } from './redis-error-mapping.ts';
import { quietClusterReadyChecks, quietReadyCheck } from './ready-check.ts';
import { InvalidArgumentError, JOBS_ERROR_CODES, JobsError, RedisUnavailableError, isJobsError } from './errors.ts';

/** A Redis or Cluster client. */
export type RedisClient = Redis | Cluster;

/**
 * A Redis Cluster to connect to: seed nodes (any few of its nodes; the rest are discovered) and
 * ioredis cluster options. Credentials and TLS for every node go in `redisOptions`.
 */
export interface ClusterConnectionOptions extends ClusterOptions {
  /** Seed nodes: `{ host, port }` or `"host:port"`. */
  cluster: ClusterNode[];
}

/**
 * Where to find Redis: a URL (`redis://` or `rediss://` for TLS, with an optional ACL user and
 * password; `redis+cluster://` or `rediss+cluster://` with comma-separated `host:port` seeds for a
 * cluster), ioredis options, {@link ClusterConnectionOptions}, or an ioredis `Redis`/`Cluster`
 * you created (it is then yours: @jobs never closes it).
 */
export type RedisConnectionInput = string | RedisOptions | ClusterConnectionOptions | Redis | Cluster;

/** A client and whether @jobs created it (and so must close it). */
export interface RedisConnection {
  readonly client: RedisClient;
  readonly owned: boolean;
}

/** True for an ioredis `Redis` or `Cluster` instance. */
export function isRedisClient(value: unknown): value is RedisClient {
  return value instanceof Redis || value instanceof Cluster;
}

// ioredis's constructor types reject its own RedisOptions under exactOptionalPropertyTypes.
const RedisClientClass = Redis as unknown as new (...args: unknown[]) => Redis;
const ClusterClass = Cluster as unknown as new (nodes: ClusterNode[], options: ClusterOptions) => Cluster;

/** A new connection to the same server(s) as `client`, e.g. for a blocking command. */
export function duplicateClient(client: RedisClient): RedisClient {
  // Never auto-pipelined (even if the client is): a blocking command would hold back the rest.
  return quiet(client instanceof Cluster ? quietClusterReadyChecks(boundQueuedCommands(client.duplicate(undefined, { enableAutoPipelining: false }))) : quietReadyCheck(failWhileUnreachable(client.duplicate({ enableAutoPipelining: false }))));
}

/**
 * Connection errors reach callers as rejected commands (typed by {@link toJobsError}); without a
 * listener ioredis would also print each one, password-free but noisy, as "Unhandled error event".
 * A client we created also cuts the arguments ioredis attaches to its errors (a failed HELLO's
 * carry the password) before anything else sees them (see {@link stripCommandArgs}): in its
 * `error` events (emitted right after the waiting commands are failed with the same error, before
 * their callers run), and in every error reply, a cluster's nodes' too.
 */
function quiet<C extends RedisClient>(client: C): C {
  client.on('error', (error: unknown) => stripCommandArgs(error));
  if (client instanceof Cluster) {
    client.on('node error', (error: unknown) => stripCommandArgs(error));
    client.on('+node', (node: Redis) => stripReplyArgs(node));
  } else {
    stripReplyArgs(client as Redis);
  }
  return client;
}

/**
 * Every error reply reaches its command through `handleReconnection` (private in ioredis, as
 * `flushQueue` below): cutting the arguments there costs the replies that are no error nothing.
 */
function stripReplyArgs(client: Redis): void {
  const target = client as unknown as { handleReconnection?: (error: unknown, item: unknown) => void };
  const handle = target.handleReconnection;
  if (typeof handle !== 'function') return;
  target.handleReconnection = function (this: unknown, error: unknown, item: unknown): void {
    stripCommandArgs(error);
    handle.call(this, error, item);
  };
}

/** What a failed connect says about the address, by the error's code. */
const UNREACHABLE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'refused the connection',
  ENOTFOUND: 'is a host name that does not resolve',
  EAI_AGAIN: 'is a host name that could not be resolved now',
  ETIMEDOUT: 'did not accept the connection in time',
  EHOSTUNREACH: 'is unreachable (no route to the host)',
  ENETUNREACH: 'is unreachable (no route to the network)',
};

/**
 * Why connecting to Redis at `address` failed, in words with the error's code (`127.0.0.1:6390
 * refused the connection (ECONNREFUSED)`), or undefined when `error` is no failure to connect.
 */
export function unreachableReason(error: unknown, address: string): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const what = code === undefined ? undefined : UNREACHABLE[code];
  return what === undefined ? undefined : `${address} ${what} (${code})`;
}

/**
 * Until a client we created has connected once, each failed attempt to connect (refused,
 * unresolvable, timed out) fails the commands waiting for it at once with that reason, instead
 * of holding them to their command timeout; it keeps reconnecting, and a command sent later
 * waits for the next attempt. Once connected, commands ride out a lost connection (a restart,
 * a failover) for their command timeout, as before.
 */
function failWhileUnreachable(client: Redis): Redis {
  let connected = false;
  client.once('ready', () => {
    connected = true;
  });
  client.on('error', (error: unknown) => {
    if (connected) return;
    // The address as a URL without the password: `redis://app:***@127.0.0.1:6390/0 refused the connection`.
    const reason = unreachableReason(error, describeOptions(client.options));
    if (reason === undefined) return;
    // Private in ioredis's types, but the one call that takes commands off the offline queue:
    // a command only rejected would still be sent once Redis is back, behind its caller's back.
    (client as unknown as { flushQueue(error: Error, options: { offlineQueue: boolean; commandQueue: boolean }): void }).flushQueue(new RedisUnavailableError(reason), {
      offlineQueue: true,
      commandQueue: false,
    });
  });
  return client;
}

/**
 * Opens a client for `input`, or adopts the one given. Clients we create fail a command after
 * `maxRetriesPerRequest` reconnect attempts instead of queueing it forever; `overrides` change
 * our defaults (options inside `input` still win).
 */
export function connectRedis(input: RedisConnectionInput, connectionName: string, overrides: RedisOptions = {}): RedisConnection {
  if (isRedisClient(input)) return { client: input, owned: false };
  // No auto-pipelining: it made enqueue and processing slower (docs/BENCHMARKS.md).
  const defaults: RedisOptions = { connectionName, maxRetriesPerRequest: 20, enableAutoPipelining: false, ...overrides };
  if (typeof input === 'string') {
    const cluster = parseClusterUrl(input);
    if (cluster) return connectCluster({ ...cluster, redisOptions: { ...cluster.redisOptions, ...defaults } }, defaults);
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      throw new InvalidArgumentError('redis', 'expected a redis://, rediss:// or redis+cluster:// URL');
    }
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
      throw new InvalidArgumentError('redis', `expected a redis://, rediss:// or redis+cluster:// URL, got ${url.protocol}//`);
    }
    return { client: quiet(quietReadyCheck(failWhileUnreachable(new RedisClientClass(input, defaults)))), owned: true };
  }
  if (typeof input === 'object' && input !== null && 'cluster' in input) {
    const { cluster, redisOptions, ...clusterOptions } = input;
    if (!Array.isArray(cluster) || cluster.length === 0) throw new InvalidArgumentError('redis.cluster', 'expected a non-empty list of seed nodes');
    return connectCluster({ ...clusterOptions, cluster, redisOptions: { ...defaults, ...redisOptions } }, defaults);
  }
  if (typeof input === 'object' && input !== null) return { client: quiet(quietReadyCheck(failWhileUnreachable(new RedisClientClass({ ...defaults, ...input })))), owned: true };
  throw new InvalidArgumentError('redis', 'expected a URL, ioredis options, cluster seeds, or an ioredis Redis or Cluster instance');
}

function connectCluster(input: ClusterConnectionOptions, defaults: RedisOptions): RedisConnection {
  const { cluster, ...options } = input;
  const client = new ClusterClass(cluster, {
    enableAutoPipelining: false,
    // A moved slot or a failover is followed for a while (a replica takes over within seconds).
    maxRedirections: 32,
    retryDelayOnClusterDown: 200,
    retryDelayOnFailover: 200,
    retryDelayOnTryAgain: 100,
    ...(defaults.commandTimeout !== undefined && { slotsRefreshTimeout: Math.min(defaults.commandTimeout, 2_000) }),
    ...options,
  });
  return { client: quiet(quietClusterReadyChecks(boundQueuedCommands(client))), owned: true };
}

const CLUSTER_URL = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/;

/**
 * Reads `redis+cluster://[user[:password]@]host:port,host:port` (or `rediss+cluster://` for TLS)
 * into cluster options, or returns `undefined` for any other URL.
 */
export function parseClusterUrl(input: string): ClusterConnectionOptions | undefined {
  if (!/^rediss?\+cluster:/i.test(input)) return undefined;
  const match = CLUSTER_URL.exec(input);
  if (!match) throw new InvalidArgumentError('redis', 'expected redis+cluster://[user[:password]@]host:port[,host:port...]');
  const [, scheme, credentials, hosts] = match as unknown as [string, string, string | undefined, string];
  const cluster: ClusterNode[] = [];
  for (const seed of hosts.split(',')) {
    const seedMatch = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(seed.trim());
    const port = Number(seedMatch?.[2]);
    if (!seedMatch || !(port >= 1 && port <= 65_535)) throw new InvalidArgumentError('redis', `cluster seed "${seed}" is not host:port`);
    cluster.push({ host: (seedMatch[1] as string).replace(/^\[|\]$/g, ''), port });
  }
  const redisOptions: RedisOptions = {};
  if (credentials !== undefined) {
    const colon = credentials.indexOf(':');
    const user = decodeURIComponent(colon === -1 ? credentials : credentials.slice(0, colon));
    if (colon === -1) {
      if (user) redisOptions.username = user;
    } else {
      if (user) redisOptions.username = user;
      redisOptions.password = decodeURIComponent(credentials.slice(colon + 1));
    }
  }
  if (scheme.toLowerCase() === 'rediss') redisOptions.tls = {};
  return { cluster, redisOptions };
}

/**
 * A description of where `input` points that is safe to log: host, port, database and user,
 * never the password.
 */
export function describeRedis(input: RedisConnectionInput): string {
  if (input instanceof Cluster) {
    const nodes = input.nodes().map((node) => `${node.options.host ?? '?'}:${node.options.port ?? '?'}`);
    return `redis cluster (${nodes.join(', ') || 'connecting'})`;
  }
  if (input instanceof Redis) return describeOptions(input.options);
  if (typeof input === 'object' && 'cluster' in input) return describeCluster(input);
  if (typeof input === 'string') {
    try {
      const cluster = parseClusterUrl(input);
      if (cluster) return describeCluster(cluster);
      const url = new URL(input);
      if (url.password) url.password = '***';
      return url.toString();
    } catch {
      return '(an unparseable Redis URL)';
    }
  }
  return describeOptions(input);
}

function describeCluster(input: ClusterConnectionOptions): string {
  const options = input.redisOptions ?? {};
  const scheme = options.tls ? 'rediss+cluster' : 'redis+cluster';
  const user = options.username ? `${options.username}${options.password ? ':***' : ''}@` : options.password ? ':***@' : '';
  const seeds = (Array.isArray(input.cluster) ? input.cluster : []).map((node) => (typeof node === 'object' ? `${node.host ?? '127.0.0.1'}:${node.port ?? 6379}` : String(node)));
  return `${scheme}://${user}${seeds.join(',')}`;
}

function describeOptions(options: RedisOptions): string {
  const scheme = options.tls ? 'rediss' : 'redis';
  const user = options.username ? `${options.username}${options.password ? ':***' : ''}@` : options.password ? ':***@' : '';
  const path = options.path ? options.path : `${options.host ?? '127.0.0.1'}:${options.port ?? 6379}`;
  return `${scheme}://${user}${path}/${options.db ?? 0}`;
}

// Redis errors are typed where they enter, in redis-error-mapping.ts; re-exported for the callers here.
export { toJobsError, withRedisErrors } from './redis-error-mapping.ts';

/**
 * Closes a client we own: QUIT when connected (pending replies arrive first), else just drop
 * the socket, so that closing never waits on a Redis that is away.
 */
export async function closeClient(client: RedisClient): Promise<void> {
  if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
  else client.disconnect();
}

/** The lowest Redis version @jobs runs on: scripts use shebang flags (7.0). */
export const MIN_REDIS_VERSION = '7.0.0';

/** Throws `JOBS_UNSUPPORTED_REDIS` unless the server is Redis 7.0 or newer. */
export async function assertRedisVersion(client: RedisClient): Promise<string> {
  let info: string;
  try {
    // On a cluster, ioredis waits for the slot map and asks any node (all run one version).
    info = await withRedisErrors(() => client.info('server'));
  } catch (error) {
    // An ACL user limited to the queue's keys and commands may not run INFO: then the scripts'
    // own errors will say so if the server is too old.
    if (isJobsError(error, JOBS_ERROR_CODES.REDIS_NOPERM)) return 'unknown';
    throw error;
  }
  const version = /redis_version:(\S+)/.exec(info)?.[1] ?? '0.0.0';
  const major = Number(version.split('.')[0]);
  if (!(major >= 7)) {
    throw new JobsError(JOBS_ERROR_CODES.UNSUPPORTED_REDIS, `Redis ${version} is too old: @jobs needs Redis ${MIN_REDIS_VERSION} or newer`);
  }
  return version;
}
