import type { Cluster, Redis } from 'ioredis';

type ReadyCallback = (error: Error | null, info?: Record<string, string>) => void;

/** The private hook ioredis runs once a connection is up, before it calls the connection ready. */
interface WithReadyCheck {
  _readyCheck?: (callback: ReadyCallback) => void;
}

/**
 * ioredis waits for a server that is still loading its data by asking INFO before it calls a
 * connection ready. A tenant's ACL user has no INFO (it tells about the whole server), and on
 * NOPERM ioredis skips the check with a console warning on every connect. Here the check is the
 * same (INFO, waiting while `loading:1`), and a user without INFO skips it quietly: its commands
 * then meet Redis's own LOADING reply while the data loads, which fails them as Redis unavailable.
 */
export function quietReadyCheck(client: Redis): Redis {
  const hooked = client as unknown as WithReadyCheck;
  // Another ioredis may name it differently: it then keeps its own check.
  if (typeof hooked._readyCheck !== 'function') return client;
  hooked._readyCheck = function check(callback: ReadyCallback): void {
    client.info((error: Error | null | undefined, reply?: string) => {
      if (error) {
        if (error.message.startsWith('NOPERM')) callback(null, {});
        else callback(error);
        return;
      }
      const info: Record<string, string> = {};
      for (const line of String(reply ?? '').split('\r\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) info[line.slice(0, colon)] = line.slice(colon + 1);
      }
      if (info['loading'] !== '1') {
        callback(null, info);
        return;
      }
      const etaMs = Math.max(Number(info['loading_eta_seconds']) || 1, 1) * 1000;
      const maxMs = client.options.maxLoadingRetryTime;
      setTimeout(() => check(callback), maxMs && maxMs < etaMs ? maxMs : etaMs);
    }).catch(() => undefined);
  };
  return client;
}

/** The connection a cluster client subscribes on (private in ioredis; picked when nodes come). */
interface WithSubscriber {
  subscriber?: { getInstance?(): Redis | null };
}

/**
 * {@link quietReadyCheck} on every node connection a cluster client opens, and on the one it
 * subscribes on (picked when the cluster is ready or its nodes change, and connected lazily).
 */
export function quietClusterReadyChecks(cluster: Cluster): Cluster {
  const hookSubscriber = (): void => {
    process.nextTick(() => {
      const subscriber = (cluster as unknown as WithSubscriber).subscriber?.getInstance?.();
      if (subscriber) quietReadyCheck(subscriber);
    });
  };
  cluster.on('+node', (node: Redis) => {
    quietReadyCheck(node);
    hookSubscriber();
  });
  cluster.on('-node', hookSubscriber);
  cluster.on('ready', hookSubscriber);
  return cluster;
}
