import type { Cluster } from 'ioredis';

/**
 * Makes a Cluster client's `commandTimeout` (from its `redisOptions`) hold from the moment a
 * command is sent, as it does on one server. ioredis starts a command's timer only once the
 * command reaches a node; while the cluster has no node to send it to (every seed down, or no
 * slot map yet) it holds the command in its offline queue with no limit, so a cluster that
 * stays away would hang every call instead of failing it with `JOBS_REDIS_UNAVAILABLE`.
 * Starting a command's timer is idempotent in ioredis, so the node's later start is a no-op.
 * Returns the client.
 */
export function timeOutQueuedCommands(cluster: Cluster): Cluster {
  const ms = cluster.options.redisOptions?.commandTimeout;
  if (ms === undefined) return cluster;
  const send = cluster.sendCommand.bind(cluster);
  cluster.sendCommand = (command, ...rest) => {
    command.setTimeout(ms);
    return send(command, ...rest);
  };
  return cluster;
}
