import type { RedisCluster } from '@jobs/dev-redis';
import { Redis } from 'ioredis';

/** A replica made to fall behind by {@link stallReplica}. */
export interface StalledReplica {
  readonly port: number;
  /** Lets the replica run again (SIGCONT). Calling it twice does nothing more. */
  resume(): void;
}

/**
 * Makes the replica of the master on `masterPort` fall behind, as a network fault between the
 * two would: the replica is frozen (SIGSTOP) and the master drops its link to it (`CLIENT KILL
 * TYPE replica`). From then on the master acknowledges writes that no replica holds, until
 * {@link StalledReplica.resume}. The replica is the one the master itself reports now (a busy
 * machine can see a failover before this is called, so the pairing the cluster was created with
 * may be stale).
 */
export async function stallReplica(cluster: RedisCluster, masterPort: number): Promise<StalledReplica> {
  const master = new Redis({ host: '127.0.0.1', port: masterPort, lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    const replication = await master.info('replication');
    const port = Number(/^slave\d+:.*\bport=(\d+),state=online/m.exec(replication)?.[1]);
    const replica = cluster.nodes.find((node) => node.port === port);
    if (replica === undefined) throw new Error(`${masterPort}: no replica of this master is online\n${replication}`);
    const pid = replica.server.pid;
    process.kill(pid, 'SIGSTOP');
    let resumed = false;
    const resume = (): void => {
      if (resumed) return;
      resumed = true;
      process.kill(pid, 'SIGCONT');
    };
    try {
      await master.call('CLIENT', 'KILL', 'TYPE', 'replica');
    } catch (error) {
      resume();
      throw error;
    }
    return { port, resume };
  } finally {
    master.disconnect();
  }
}
