import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { askNode } from './ask-node.ts';
import { parseClusterNodes, type ClusterNodeEntry, type SlotRange } from './cluster-nodes.ts';
import { findFreePort } from './free-port.ts';
import { infoField } from './info-fields.ts';
import { PortTakenError, startRedisServer, type RedisServer } from './redis-server.ts';
import { waitUntil, type Check } from './wait-until.ts';

/** Options for {@link startRedisCluster}. */
export interface StartRedisClusterOptions {
  /** How many masters share the 16384 slots. Default 3, the least `redis-cli --cluster create` accepts. */
  masters?: number;
  /** Replicas of each master. Default 1. */
  replicasPerMaster?: number;
  /** `--cluster-node-timeout`: how long a node may be silent before it is suspected failed. Default 1000 ms. */
  nodeTimeoutMs?: number;
  /** Extra `redis-server` arguments for every node, e.g. `['--appendonly', 'yes']`. */
  args?: string[];
  /** Keep the nodes' data folders after {@link RedisCluster.stop}. Default false. */
  keepData?: boolean;
  /** Path of `redis-server`. Default `REDIS_SERVER_BIN` or `redis-server` on PATH. */
  binary?: string;
  /** Run every node on these CPUs only (see `StartRedisServerOptions.cpus`). */
  cpus?: string;
  /** Path of `redis-cli`, which creates the cluster. Default `REDIS_CLI_BIN` or `redis-cli` on PATH. */
  cliBinary?: string;
  /** How long to wait for the whole cluster to be formed and in sync. Default 30 s. */
  startTimeoutMs?: number;
}

/** An address a cluster client can start from. */
export interface ClusterSeed {
  readonly host: string;
  readonly port: number;
}

/** One node of a {@link RedisCluster}. */
export interface RedisClusterNode {
  readonly port: number;
  /** The cluster bus port (node-to-node gossip), chosen free like the client port. */
  readonly busPort: number;
  /** The node's role when the cluster was created; after a failover, ask {@link RedisCluster.masters}. */
  readonly role: 'master' | 'replica';
  /** For a replica: its master's port when the cluster was created. */
  readonly replicaOf: number | undefined;
  /** The node's redis-server process now: after {@link RedisCluster.restartNode}, the new one. */
  readonly server: RedisServer;
}

/** A master as the live cluster sees it now. */
export interface ClusterMaster {
  readonly port: number;
  readonly id: string;
  /** The slot ranges it serves, both ends included. */
  readonly slots: readonly SlotRange[];
}

/** A running private Redis Cluster of `redis-server` children on 127.0.0.1. */
export interface RedisCluster {
  /** Every node's address, for a cluster client's startup nodes. */
  readonly seeds: readonly ClusterSeed[];
  /** `redis+cluster://127.0.0.1:<port>,127.0.0.1:<port>,...`, every node. */
  readonly url: string;
  readonly nodes: readonly RedisClusterNode[];
  /** Stops every node and removes their data folders unless kept. */
  stop(): Promise<void>;
  /** Asks the live cluster (the first node that answers) which nodes are masters now, ordered by their first slot. */
  masters(): Promise<ClusterMaster[]>;
  /**
   * Kills a master at once (SIGKILL), as a crash would, and resolves with its port. Default: the
   * master of slot 0. A port that is not a live master now is an error.
   */
  killMaster(port?: number): Promise<number>;
  /**
   * Resolves with the port of the former replica of the dead master once it is a master serving
   * that master's slots in the view of every node that answers, and every such node says
   * `cluster_state:ok`. Default timeout 20 s.
   */
  waitForFailover(deadPort: number, timeoutMs?: number): Promise<number>;
  /**
   * Starts a node that {@link killMaster} killed again, on its ports and with its data folder (so
   * with its `nodes.conf`: it is the same cluster member), as a machine that comes back would. A
   * master whose slots were taken over meanwhile returns as a replica of its heir. Resolves once
   * the node says the cluster is ok and, as a replica, that its link to its master is up (the
   * initial sync is done), or, as a master, that it serves slots. Default timeout 20 s.
   */
  restartNode(port: number, timeoutMs?: number): Promise<void>;
}

const SLOTS = 16_384;
const run = promisify(execFile);

/**
 * Starts a private Redis Cluster on 127.0.0.1: `masters × (1 + replicasPerMaster)` nodes on free
 * ports, each in its own data folder under `<repo>/.redis-data/`, joined by `redis-cli --cluster
 * create`. Resolves once every node says the cluster is ok, all of them agree on who serves
 * which slots, and every replica is linked to its master.
 */
export async function startRedisCluster(options: StartRedisClusterOptions = {}): Promise<RedisCluster> {
  const masterCount = options.masters ?? 3;
  const replicasPerMaster = options.replicasPerMaster ?? 1;
  if (!Number.isInteger(masterCount) || masterCount < 3) throw new RangeError(`masters must be a whole number of at least 3, got ${masterCount}`);
  if (!Number.isInteger(replicasPerMaster) || replicasPerMaster < 0) {
    throw new RangeError(`replicasPerMaster must be a whole number of at least 0, got ${replicasPerMaster}`);
  }
  const total = masterCount * (1 + replicasPerMaster);

  const started = await Promise.allSettled(Array.from({ length: total }, () => startClusterNode(options)));
  const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  // Nodes killed by killMaster, and the processes restartNode started in their place.
  const killed = new Set<number>();
  const restarted = new Map<number, RedisServer>();
  const stopAll = async (): Promise<void> => {
    // A restarted node first: the first process's stop removes the data folder they share.
    await Promise.all([...restarted.values()].map((server) => server.stop()));
    await Promise.all(servers.map(({ server }) => server.stop()));
  };
  const failedStart = started.find((result) => result.status === 'rejected');
  if (failedStart !== undefined) {
    await stopAll();
    throw failedStart.reason;
  }

  const ports = servers.map(({ server }) => server.port);
  let created: ClusterNodeEntry[];
  try {
    await createCluster(options.cliBinary ?? process.env.REDIS_CLI_BIN ?? 'redis-cli', ports, replicasPerMaster);
    created = await waitUntil('cluster start', options.startTimeoutMs ?? 30_000, () => clusterFormed(ports, masterCount * replicasPerMaster));
  } catch (error) {
    await stopAll();
    throw error;
  }

  // redis-cli picks which nodes become masters and pairs the replicas; read what it did.
  const portOfId = new Map(created.map((entry) => [entry.id, entry.port]));
  const nodes: RedisClusterNode[] = servers.map(({ server, busPort }) => {
    const entry = created.find((candidate) => candidate.port === server.port);
    const replicaOf = entry?.masterId === undefined ? undefined : portOfId.get(entry.masterId);
    return {
      port: server.port,
      busPort,
      role: entry?.role ?? 'master',
      replicaOf,
      get server() {
        return restarted.get(server.port) ?? server;
      },
    };
  });
  // Who replicates whom, as last seen before a kill: waitForFailover looks for the heir here.
  const replicasOf = new Map<number, number[]>();
  for (const node of nodes) {
    if (node.replicaOf !== undefined) replicasOf.set(node.replicaOf, [...(replicasOf.get(node.replicaOf) ?? []), node.port]);
  }

  const liveView = async (): Promise<ClusterNodeEntry[]> => {
    for (const port of ports) {
      const reply = await askNode(port, async (client) => String(await client.cluster('NODES'))).catch(() => undefined);
      if (reply !== undefined) return parseClusterNodes(reply);
    }
    throw new Error(`no node of the cluster answers (ports ${ports.join(', ')})`);
  };

  const masters = async (): Promise<ClusterMaster[]> => (await liveView())
    .filter((entry) => entry.role === 'master' && !entry.failed)
    .map(({ port, id, slots }) => ({ port, id, slots }))
    .sort((a, b) => (a.slots[0]?.[0] ?? SLOTS) - (b.slots[0]?.[0] ?? SLOTS));

  return {
    seeds: ports.map((port) => ({ host: '127.0.0.1', port })),
    url: `redis+cluster://${ports.map((port) => `127.0.0.1:${port}`).join(',')}`,
    nodes,
    stop: stopAll,
    masters,
    async killMaster(port) {
      const view = await liveView();
      const liveMasters = view.filter((entry) => entry.role === 'master' && !entry.failed);
      const target = port === undefined ? pickMasterOfSlotZero(liveMasters) : liveMasters.find((entry) => entry.port === port);
      const node = nodes.find((candidate) => candidate.port === target?.port);
      if (target === undefined || node === undefined) throw new Error(`${port ?? 'slot 0'}: no live master of this cluster there`);
      replicasOf.set(target.port, view.filter((entry) => entry.masterId === target.id).map((entry) => entry.port));
      killed.add(target.port);
      await node.server.crash();
      return target.port;
    },
    waitForFailover(deadPort, timeoutMs = 20_000) {
      const heirs = replicasOf.get(deadPort) ?? [];
      if (heirs.length === 0) return Promise.reject(new Error(`${deadPort}: not a master with replicas, so no failover to wait for`));
      const others = ports.filter((port) => port !== deadPort);
      return waitUntil(`failover of ${deadPort}`, timeoutMs, () => failedOver(others, deadPort, heirs));
    },
    async restartNode(port, timeoutMs = 20_000) {
      const node = nodes.find((candidate) => candidate.port === port);
      if (node === undefined || !killed.has(port)) throw new Error(`${port}: not a node of this cluster that killMaster killed`);
      // Its slots moved to a replica meanwhile: it must come back as a replica, whatever its
      // nodes.conf says at first.
      const asReplica = !(await liveView()).some((entry) => entry.port === port && entry.slots.length > 0);
      const server = await startRedisServer({
        name: 'cluster',
        port,
        dataDir: node.server.dataDir,
        ...(options.binary === undefined ? {} : { binary: options.binary }),
        ...(options.cpus === undefined ? {} : { cpus: options.cpus }),
        args: clusterNodeArgs(options, node.busPort),
      });
      killed.delete(port);
      restarted.set(port, server);
      await waitUntil(`rejoin of ${port}`, timeoutMs, () => rejoined(port, asReplica));
    },
  };
}

interface StartedNode {
  readonly server: RedisServer;
  readonly busPort: number;
}

/**
 * Starts one cluster-enabled node. Both its ports are picked here: with only a client port, Redis
 * would put the bus on port + 10000, which is past 65535 for a third of the ephemeral range and
 * not checked for being free.
 */
async function startClusterNode(options: StartRedisClusterOptions): Promise<StartedNode> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const port = await findFreePort();
    const busPort = await findFreePort();
    if (busPort === port) continue;
    try {
      const server = await startRedisServer({
        name: 'cluster',
        port,
        ...(options.keepData === undefined ? {} : { keepData: options.keepData }),
        ...(options.binary === undefined ? {} : { binary: options.binary }),
        ...(options.cpus === undefined ? {} : { cpus: options.cpus }),
        args: clusterNodeArgs(options, busPort),
      });
      return { server, busPort };
    } catch (error) {
      lastError = error;
      // Another process took one of the two ports between the check and the bind: pick again.
      if (!(error instanceof PortTakenError)) throw error;
    }
  }
  throw lastError ?? new Error('could not find two free ports for a cluster node');
}

/** The `redis-server` arguments of a cluster node whose bus listens on `busPort`. */
function clusterNodeArgs(options: StartRedisClusterOptions, busPort: number): string[] {
  // startRedisServer already passes --bind 127.0.0.1 --save '' --appendonly no.
  return [
    '--cluster-enabled', 'yes',
    '--cluster-config-file', 'nodes.conf',
    '--cluster-node-timeout', String(options.nodeTimeoutMs ?? 1_000),
    '--cluster-port', String(busPort),
    // Say so rather than leave each node to work out its own address from the first MEET.
    '--cluster-announce-ip', '127.0.0.1',
    // A master waits 5 s by default for more replicas before a diskless full sync; the
    // replicas here all attach at once, so that wait would only slow the start down.
    '--repl-diskless-sync-delay', '0',
    ...(options.args ?? []),
  ];
}

/** Joins the nodes into one cluster: redis-cli assigns the slots, pairs replicas with masters and introduces everyone. */
async function createCluster(cliBinary: string, ports: readonly number[], replicasPerMaster: number): Promise<void> {
  const args = ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', String(replicasPerMaster), '--cluster-yes'];
  try {
    await run(cliBinary, args, { timeout: 30_000 });
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (failure.code === 'ENOENT') {
      throw new Error(`${cliBinary} was not found. Install Redis 7 (Debian: apt-get install redis-tools) or set REDIS_CLI_BIN.`, { cause: error });
    }
    throw new Error(`redis-cli --cluster create failed: ${failure.message}\n${failure.stdout ?? ''}${failure.stderr ?? ''}`, { cause: error });
  }
}

/** One node's answers to the questions the start and failover checks ask. */
interface NodeReport {
  readonly port: number;
  readonly info: string;
  readonly nodes: ClusterNodeEntry[];
  readonly replication: string;
}

function reportOf(port: number): Promise<NodeReport | undefined> {
  return askNode(port, async (client) => ({
    port,
    info: await client.cluster('INFO'),
    nodes: parseClusterNodes(String(await client.cluster('NODES'))),
    replication: await client.info('replication'),
  }));
}

const notYet = (reason: string): Check<never> => ({ done: false, reason });

/** Who serves which slots, in one comparable string: `start-end@port` for every live master's range. */
function slotOwners(view: readonly ClusterNodeEntry[]): string {
  return view
    .filter((entry) => entry.role === 'master' && !entry.failed)
    .flatMap((entry) => entry.slots.map(([start, end]) => ({ start, text: `${start}-${end}@${entry.port}` })))
    .sort((a, b) => a.start - b.start)
    .map(({ text }) => text)
    .join(' ');
}

/** Is the new cluster whole: every node ok, all slots assigned, everyone known, one slot map, replicas linked? */
async function clusterFormed(ports: readonly number[], expectedReplicas: number): Promise<Check<ClusterNodeEntry[]>> {
  const reports = await Promise.all(ports.map(reportOf));
  let firstMap: string | undefined;
  let replicas = 0;
  for (const [index, report] of reports.entries()) {
    if (report === undefined) return notYet(`${ports[index]} does not answer`);
    const { port, info, nodes, replication } = report;
    if (infoField(info, 'cluster_state') !== 'ok') return notYet(`${port}: cluster_state:${infoField(info, 'cluster_state')}`);
    if (infoField(info, 'cluster_slots_assigned') !== String(SLOTS)) return notYet(`${port}: cluster_slots_assigned:${infoField(info, 'cluster_slots_assigned')}`);
    if (infoField(info, 'cluster_known_nodes') !== String(ports.length)) return notYet(`${port}: cluster_known_nodes:${infoField(info, 'cluster_known_nodes')}`);
    const map = slotOwners(nodes);
    firstMap ??= map;
    if (map !== firstMap) return notYet(`${port} sees other slot owners than ${ports[0]}`);
    // The pairing is read from the first node's view: every view must know every replica as one.
    const replicasSeen = nodes.filter((entry) => entry.role === 'replica' && entry.masterId !== undefined).length;
    if (replicasSeen !== expectedReplicas) return notYet(`${port} sees ${replicasSeen} of ${expectedReplicas} replicas`);
    if (infoField(replication, 'role') === 'slave') {
      replicas += 1;
      if (infoField(replication, 'master_link_status') !== 'up') return notYet(`${port}: master_link_status:${infoField(replication, 'master_link_status')}`);
    }
  }
  if (replicas !== expectedReplicas) return notYet(`${replicas} of ${expectedReplicas} replicas`);
  return { done: true, value: reports[0]?.nodes ?? [] };
}

/** Has one of `heirs` taken over from `deadPort`, in the view of every node that answers? */
async function failedOver(ports: readonly number[], deadPort: number, heirs: readonly number[]): Promise<Check<number>> {
  const reports = (await Promise.all(ports.map(reportOf))).filter((report) => report !== undefined);
  const heir = heirs.find((port) => reports.some((report) => report.port === port && isServingMaster(report.nodes, port)));
  if (heir === undefined) return notYet(`no replica of ${deadPort} (${heirs.join(', ')}) is a master with slots yet`);
  for (const { port, info, nodes } of reports) {
    if (infoField(info, 'cluster_state') !== 'ok') return notYet(`${port}: cluster_state:${infoField(info, 'cluster_state')}`);
    if (!isServingMaster(nodes, heir)) return notYet(`${port} does not see ${heir} as a master yet`);
    if (nodes.some((entry) => entry.port === deadPort && entry.slots.length > 0)) return notYet(`${port} still gives slots to ${deadPort}`);
  }
  return { done: true, value: heir };
}

/**
 * Is the restarted node on `port` back: cluster ok, and either a replica in sync (`asReplica`) or
 * a master serving slots?
 */
async function rejoined(port: number, asReplica: boolean): Promise<Check<void>> {
  const report = await reportOf(port);
  if (report === undefined) return notYet(`${port} does not answer`);
  const { info, nodes, replication } = report;
  if (infoField(info, 'cluster_state') !== 'ok') return notYet(`${port}: cluster_state:${infoField(info, 'cluster_state')}`);
  const role = infoField(replication, 'role');
  if (asReplica) {
    if (role !== 'slave') return notYet(`${port}: still role:${role}`);
    const link = infoField(replication, 'master_link_status');
    return link === 'up' ? { done: true, value: undefined } : notYet(`${port}: master_link_status:${link}`);
  }
  return role === 'master' && isServingMaster(nodes, port) ? { done: true, value: undefined } : notYet(`${port}: not a master serving slots yet`);
}

function isServingMaster(view: readonly ClusterNodeEntry[], port: number): boolean {
  return view.some((entry) => entry.port === port && entry.role === 'master' && !entry.failed && entry.slots.length > 0);
}

function pickMasterOfSlotZero(liveMasters: readonly ClusterNodeEntry[]): ClusterNodeEntry | undefined {
  return liveMasters.find((entry) => entry.slots.some(([start]) => start === 0));
}
