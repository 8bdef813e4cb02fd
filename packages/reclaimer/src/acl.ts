import { queueKeys } from '@jobs/core';
import { partitionNames } from '@jobs/core/internal';

/** Commands the Lua scripts run inside Redis (ACL checks those too, with the caller's key rules). */
const SCRIPT_COMMANDS = [
  'time', 'type', 'exists', 'persist', 'expire', 'del', 'get', 'set',
  'hget', 'hmget', 'hset', 'hsetnx', 'hdel', 'hgetall', 'hincrby', 'hexists', 'hkeys', 'pexpire', 'pexpireat',
  'lmove', 'lpush', 'rpush', 'lpop', 'rpop', 'lrem', 'lpos', 'lrange', 'ltrim', 'llen', 'lindex',
  'zadd', 'zrem', 'zrange', 'zscore', 'zcard', 'zremrangebyscore', 'zremrangebyrank', 'publish',
  'xadd', 'xrange',
  'bitfield', 'getrange',
];

/**
 * What ioredis sends on a connection of its own, one subcommand each (not `@connection`, which
 * also holds CLIENT PAUSE, KILL and LIST, about every other client). `asking` and `readonly`:
 * a cluster's redirections and replica reads; `wait`: durable mode.
 */
const CONNECTION_COMMANDS = ['auth', 'hello', 'ping', 'select', 'quit', 'client|setname', 'client|getname', 'client|id', 'asking', 'readonly', 'wait'];

/**
 * Commands the clients send themselves. `fcall` and `function|list`: the scripts run as functions
 * of one library, once the client read it back (FUNCTION LIST ... WITHCODE, which shows code, no
 * keys) and found it to be ours; else they run through EVALSHA, whose content is its hash.
 * `cluster|slots` and `cluster|info`: how a cluster client learns the slot map and that the
 * cluster is ready. `xrevrange` (and the scripts' `xadd`): the audit trail, read newest first.
 */
const CLIENT_COMMANDS = ['fcall', 'function|list', 'evalsha', 'eval', 'script|load', 'script|exists', 'blmove', 'subscribe', 'unsubscribe', 'unlink', 'cluster|slots', 'cluster|info', 'xread', 'xrevrange', 'xinfo|stream', 'multi', 'exec'];

/**
 * What only the operator's user sends: loading the function library (code that runs inside every
 * user's calls), SCAN (queue discovery, `jobsctl purge`: it lists every key of the server),
 * INFO, and PUBSUB NUMSUB/NUMPAT (the scripts skip events nobody hears: Redis answers them for
 * any channel name, whatever the user's channel rules).
 */
const OPERATOR_COMMANDS = ['function|load', 'scan', 'info', 'pubsub|numsub', 'pubsub|numpat'];

/**
 * The ACL rules of a tenant's Redis user: it can run producers, workers, the reclaimer and the
 * admin CLI on `queues` and nothing else: the queues' keys, their events, wake and control channels, and
 * the commands @jobs uses, on one server or a cluster (where every node needs the user: a cluster
 * does not share its users). With `partitions`, each queue is a partitioned queue of that many
 * partitions. Such a user cannot change code that other users' calls run (no FUNCTION LOAD,
 * DELETE or FLUSH, no SCRIPT FLUSH), cannot pause, kill or list other clients, and cannot read
 * other tenants' key or channel names (no SCAN, KEYS, RANDOMKEY, INFO, PUBSUB). It names its
 * queues: discovery and `jobsctl purge` are the operator's (see {@link jobsOperatorAclRules}).
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
    ...keys.flatMap((k) => [`&${k.events}`, `&${k.wake}`, `&${k.schedulesWake}`, `&${k.control}`]),
    '-@all',
    ...[...CONNECTION_COMMANDS, ...CLIENT_COMMANDS, ...SCRIPT_COMMANDS].map((command) => `+${command}`),
  ];
}

/**
 * The ACL rules of the operator's Redis user: every queue's keys and channels (`queue:*`), what a
 * tenant's user may do, and what only an operator should: load the function library
 * (`jobsctl functions load`), discover queues and purge them (SCAN), read INFO. Not for
 * applications: a user that may FUNCTION LOAD can replace the code every other user's FCALL
 * runs. Still no CLIENT, CONFIG, FLUSHALL or KEYS.
 *
 * @example
 * ```ts
 * await redis.acl('SETUSER', 'jobs-operator', 'on', '>secret', ...jobsOperatorAclRules());
 * ```
 */
export function jobsOperatorAclRules(): string[] {
  return [
    'resetkeys',
    '~queue:*',
    'resetchannels',
    '&queue:*',
    '-@all',
    ...[...CONNECTION_COMMANDS, ...CLIENT_COMMANDS, ...OPERATOR_COMMANDS, ...SCRIPT_COMMANDS].map((command) => `+${command}`),
  ];
}
