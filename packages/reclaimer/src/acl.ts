import { queueKeys } from '@jobs/core';
import { partitionNames } from '@jobs/core/internal';

/** Commands the Lua scripts run inside Redis (ACL checks those too). */
const SCRIPT_COMMANDS = [
  'time', 'type', 'exists', 'persist', 'expire', 'del', 'get', 'set',
  'hget', 'hmget', 'hset', 'hsetnx', 'hdel', 'hgetall', 'hincrby', 'hexists', 'hkeys', 'pexpire',
  'lmove', 'lpush', 'rpush', 'lpop', 'rpop', 'lrem', 'lpos', 'lrange', 'ltrim', 'llen', 'lindex',
  'zadd', 'zrem', 'zrange', 'zscore', 'zcard', 'zremrangebyscore', 'publish', 'pubsub|numsub', 'pubsub|numpat',
  'xadd', 'xrange',
];

/** Commands the clients send themselves. (`fcall` and `function|load`: the scripts run as functions of one library, loaded once per server; without them they run through EVALSHA, slower. `cluster|slots` and `cluster|info`: how a cluster client learns the slot map and that the cluster is ready.) */
const CLIENT_COMMANDS = ['fcall', 'function|load', 'evalsha', 'eval', 'script|load', 'script|exists', 'blmove', 'subscribe', 'unsubscribe', 'info', 'scan', 'unlink', 'cluster|slots', 'cluster|info', 'xread', 'xinfo|stream', 'multi', 'exec'];

/**
 * The ACL rules of a Redis user that can run producers, workers, the reclaimer and the admin
 * CLI on `queues` and nothing else: the queues' keys, their events and wake channels, and the commands
 * @jobs uses, on one server or a cluster (where every node needs the user: a cluster does not
 * share its users). With `partitions`, each queue is a partitioned queue of that many
 * partitions. (`scan` and `unlink` are for `jobsctl purge` and queue discovery; an application's
 * user can do without them.)
 *
 * @example
 * ```ts
 * await redis.acl('SETUSER', 'mail-app', 'on', '>secret', ...jobsAclRules(['mail']));
 * ```
 */
export function jobsAclRules(queues: readonly string[], options: { partitions?: number } = {}): string[] {
  // A partitioned queue: its own name (where the count is recorded) and each partition's keys.
  const partitions = options.partitions ?? 1;
  const names = queues.flatMap((queue) => (partitions > 1 ? [queue, ...partitionNames(queue, partitions)] : [queue]));
  const keys = names.map((queue) => queueKeys(queue));
  return [
    'resetkeys',
    ...keys.map((k) => `~${k.prefix}*`),
    'resetchannels',
    ...keys.flatMap((k) => [`&${k.events}`, `&${k.wake}`, `&${k.schedulesWake}`]),
    '-@all',
    '+@connection',
    ...[...CLIENT_COMMANDS, ...SCRIPT_COMMANDS].map((command) => `+${command}`),
  ];
}
