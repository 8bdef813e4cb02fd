import type { Cluster, Command } from 'ioredis';

// Refusals that no retry will change: wrong credentials, or a user without a permission.
const REFUSED = /^(WRONGPASS|NOAUTH|NOPERM)\b/;

/**
 * Bounds what a Cluster client does with commands while it reaches no node (every seed down,
 * every node refusing it, or no slot map yet): ioredis holds them in its offline queue with no
 * limit, and starts a command's timer only once it reaches a node. Here, as on one server:
 *
 * - the `commandTimeout` of the client's `redisOptions` holds from the moment a command is
 *   sent (starting a command's timer is idempotent in ioredis: the node's later start is a no-op);
 * - when every node refused the client (WRONGPASS, NOAUTH, NOPERM: ioredis reports it as a failed
 *   slot map refresh), the commands held and those sent until it is ready fail with that refusal
 *   at once, so callers get `JOBS_REDIS_AUTH` or `JOBS_REDIS_NOPERM`, not a timeout.
 *
 * Returns the client.
 */
export function boundQueuedCommands(cluster: Cluster): Cluster {
  const ms = cluster.options.redisOptions?.commandTimeout;
  const held = new Set<Command>();
  let refusal: Error | undefined;
  cluster.on('error', (error: Error & { lastNodeError?: Error }) => {
    const cause = error.lastNodeError ?? error;
    if (!REFUSED.test(cause.message)) return;
    refusal = cause;
    for (const command of held) command.reject(cause);
  });
  cluster.on('ready', () => {
    refusal = undefined;
  });
  const send = cluster.sendCommand.bind(cluster);
  cluster.sendCommand = (command, ...rest) => {
    if (ms !== undefined) command.setTimeout(ms);
    if (cluster.status !== 'ready') {
      if (refusal !== undefined) {
        command.reject(refusal);
        return command.promise;
      }
      held.add(command);
      const settled = (): void => {
        held.delete(command);
      };
      command.promise.then(settled, settled);
    }
    return send(command, ...rest);
  };
  return cluster;
}
