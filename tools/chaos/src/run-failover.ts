import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedisCluster, type RedisCluster } from '@jobs/dev-redis';
import { isJobsError } from '@jobs/producer';
import { Queue } from '@jobs/reclaimer';
import { Redis } from 'ioredis';
import { analyzeFailover, type FailoverFindings } from './analyze-failover.ts';
import { CHAOS_QUEUE, chaosKinds } from './kinds.ts';
import { readLedgers } from './ledger.ts';
import { startProducerLoops, type ProducerLoops } from './producer-loops.ts';
import { stallReplica, type StalledReplica } from './stall-replica.ts';

const WORKER_SCRIPT = fileURLToPath(new URL('../dist/chaos-worker.js', import.meta.url));
/** The share of the load time after which the queue's master is killed. */
const KILL_AT = 0.3;
/** Producers go on at least this long after the dead node is back, however long the failover took. */
const LOAD_AFTER_REJOIN_MS = 2_000;

/** Options of {@link runFailover}. */
export interface FailoverOptions {
  /** Durable mode (`durability: { replicas: 1 }`) for the producers and the workers. */
  durable: boolean;
  /** How long the producers enqueue, failover included. Default 12. */
  seconds?: number;
  /** Worker processes. Default 3. */
  workers?: number;
  /** Producer loops. Default 2. */
  producers?: number;
  /**
   * How long the replica of the queue's master lags behind (frozen, its link cut) before the
   * master is killed, in ms. Default 500: on loopback a replica is otherwise never more than a
   * moment behind, and the kill would find nothing that only the master holds. 0: a plain kill.
   */
  lagMs?: number;
  /** Progress lines. Default: none. */
  log?: (line: string) => void;
}

/** What a failover run did and what it found. */
export interface FailoverReport extends FailoverFindings {
  readonly durable: boolean;
  /** The whole run, cluster start and drain included. */
  readonly seconds: number;
  /** The hash slot of the queue's keys. */
  readonly slot: number;
  /** The master that served the slot and was killed. */
  readonly killedPort: number;
  /** The replica that took over. */
  readonly promotedPort: number;
  /** How long that replica lagged behind before the kill. */
  readonly lagMs: number;
  /** Who serves the slot at the end, as the live cluster says. */
  readonly slotOwnerAfter: number;
  /** From the kill to every node agreeing that the replica serves the slot. */
  readonly failoverMs: number;
  /** From the kill until the killed node, restarted, was a replica of the new master in sync. */
  readonly rejoinMs: number;
  /** Enqueues acknowledged after the kill: the queue took writes again. */
  readonly acknowledgedAfterKill: number;
  /** The longest time no enqueue was acknowledged, around the failover. */
  readonly longestAckGapMs: number;
  /** Enqueues the producers had to retry, by error code. */
  readonly producerRetries: Readonly<Record<string, number>>;
  /** The one line to print. */
  readonly summary: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The code of a failed enqueue, for counting: the @jobs code, or the first word of Redis's error. */
function errorCode(error: unknown): string {
  if (isJobsError(error)) return error.code;
  return error instanceof Error ? (error.message.split(' ')[0] ?? 'Error') : 'unknown';
}

/** The hash slot of `key`, as a node of the cluster computes it. */
async function keySlot(cluster: RedisCluster, key: string): Promise<number> {
  const seed = cluster.seeds[0] as { host: string; port: number };
  const client = new Redis({ host: seed.host, port: seed.port, lazyConnect: true });
  try {
    return Number(await client.cluster('KEYSLOT', key));
  } finally {
    client.disconnect();
  }
}

/** The port of the live master that serves `slot`. */
async function masterOf(cluster: RedisCluster, slot: number): Promise<number> {
  const master = (await cluster.masters()).find(({ slots }) => slots.some(([start, end]) => slot >= start && slot <= end));
  if (master === undefined) throw new Error(`no live master serves slot ${slot}`);
  return master.port;
}

/**
 * Runs producers and worker processes on one queue of a six-node Redis Cluster (three masters,
 * a replica each, no persistence), lets the replica of the master that serves the queue's slot
 * fall behind for `lagMs`, SIGKILLs that master, waits for the replica to take over, restarts
 * the dead node (it comes back as the new master's replica) and keeps producing. Then it lets
 * the queue drain and checks what every acknowledged enqueue became. With `durable`, producers
 * and workers wait for one replica on every acknowledged write; without it, Redis's
 * asynchronous replication may drop acknowledged writes in the failover, and the run says how
 * many.
 */
export async function runFailover(options: FailoverOptions): Promise<FailoverReport> {
  const log = options.log ?? (() => undefined);
  const seconds = options.seconds ?? 12;
  const workerCount = options.workers ?? 3;
  const lagMs = options.lagMs ?? 500;
  const durability = options.durable ? { durability: { replicas: 1 } } : {};
  const runStarted = Date.now();
  const cluster = await startRedisCluster({ nodeTimeoutMs: 1_000, args: ['--appendonly', 'no'] });
  const ledgerDir = mkdtempSync(join(tmpdir(), 'jobs-failover-'));
  const workers = new Set<ChildProcess>();
  let admin: Queue<unknown> | undefined;
  let producers: ProducerLoops | undefined;
  let stalled: StalledReplica | undefined;
  try {
    const slot = await keySlot(cluster, `queue:{${CHAOS_QUEUE}}:pending`);
    const queueMaster = await masterOf(cluster, slot);
    log(`${options.durable ? 'durable' : 'default'} mode: queue ${CHAOS_QUEUE} is in slot ${slot}, served by ${queueMaster}`);

    const started = Date.now();
    const env = { ...process.env, REDIS_URL: cluster.url, LEDGER_DIR: ledgerDir, DURABLE_REPLICAS: options.durable ? '1' : '0' };
    for (let i = 0; i < workerCount; i += 1) {
      const child = spawn(process.execPath, [WORKER_SCRIPT], { env, stdio: ['ignore', 'ignore', 'inherit'] });
      workers.add(child);
      child.on('exit', () => workers.delete(child));
    }

    // Producers: each enqueue has its own idempotency key and is retried until acknowledged.
    const producerRetries: Record<string, number> = {};
    let lastAckAt = Date.now();
    let longestAckGapMs = 0;
    producers = startProducerLoops({
      redis: cluster.url,
      count: options.producers ?? 2,
      keyPrefix: 'failover',
      ...durability,
      onAcknowledged: () => {
        const now = Date.now();
        longestAckGapMs = Math.max(longestAckGapMs, now - lastAckAt);
        lastAckAt = now;
      },
      onRetry: (error) => {
        const code = errorCode(error);
        if (producerRetries[code] === undefined) log(`producer: ${code}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
        producerRetries[code] = (producerRetries[code] ?? 0) + 1;
      },
    });
    const acknowledged = producers.acknowledged;

    // The failover, a third of the way in, after the replica fell behind; the dead node comes
    // back as soon as it is over.
    await sleep(KILL_AT * seconds * 1_000);
    if (lagMs > 0) {
      stalled = await stallReplica(cluster, queueMaster);
      log(`replica ${stalled.port} stalled, ${acknowledged.size} jobs acknowledged`);
      await sleep(lagMs);
    }
    const killedAt = Date.now();
    const acknowledgedAtKill = acknowledged.size;
    const killedPort = await cluster.killMaster(queueMaster);
    stalled?.resume();
    log(`killed master ${killedPort} with ${acknowledged.size} jobs acknowledged`);
    const promotedPort = await cluster.waitForFailover(killedPort, 30_000);
    const failoverMs = Date.now() - killedAt;
    log(`replica ${promotedPort} took over after ${failoverMs} ms`);
    await cluster.restartNode(killedPort, 30_000);
    const rejoinMs = Date.now() - killedAt;
    log(`${killedPort} is back as a replica of ${promotedPort}, ${rejoinMs} ms after the kill`);
    await sleep(Math.max(LOAD_AFTER_REJOIN_MS, started + seconds * 1_000 - Date.now()));
    await producers.stop();
    longestAckGapMs = Math.max(longestAckGapMs, Date.now() - lastAckAt);
    const acknowledgedAfterKill = acknowledged.size - acknowledgedAtKill;
    log(`producers stopped: ${acknowledged.size} jobs acknowledged; draining`);

    // Poll until nothing waits: a rolled-back claim waits out its lease, a failed attempt its backoff.
    admin = new Queue({ redis: cluster.url, queue: CHAOS_QUEUE, kinds: chaosKinds }) as unknown as Queue<unknown>;
    const drainUntil = Date.now() + 60_000;
    for (;;) {
      const stats = await admin.stats();
      if (stats.pendingDepth + stats.processingDepth + stats.delayedDepth === 0) break;
      if (Date.now() > drainUntil) {
        log(`not drained after 60 s: pending=${stats.pendingDepth} processing=${stats.processingDepth} delayed=${stats.delayedDepth}`);
        break;
      }
      await sleep(200);
    }
    const slotOwnerAfter = await masterOf(cluster, slot);
    await stopWorkers(workers);

    const findings = await analyzeFailover(admin, acknowledged, readLedgers(ledgerDir));
    const elapsed = Math.round((Date.now() - runStarted) / 1_000);
    const retries = Object.entries(producerRetries).map(([code, count]) => `${code}:${count}`).join(',') || '0';
    const summary =
      `failover (${options.durable ? 'durable' : 'default'}): ${elapsed} s, acknowledged=${findings.acknowledged} completed=${findings.completed} ` +
      `(only_in_ledger=${findings.completedOnlyInLedger}) failed=${findings.failed} lost=${findings.lost.length} leftover=${findings.leftover.length} ` +
      `executions=${findings.executions} duplicate_executions=${findings.duplicateExecutions} failover_ms=${failoverMs} rejoin_ms=${rejoinMs} ` +
      `acknowledged_after_kill=${acknowledgedAfterKill} longest_ack_gap_ms=${longestAckGapMs} producer_retries=${retries} lag_ms=${lagMs} slot=${slot} master=${killedPort}->${slotOwnerAfter}`;
    return {
      ...findings,
      durable: options.durable,
      seconds: elapsed,
      slot,
      killedPort,
      promotedPort,
      lagMs,
      slotOwnerAfter,
      failoverMs,
      rejoinMs,
      acknowledgedAfterKill,
      longestAckGapMs,
      producerRetries,
      summary,
    };
  } finally {
    stalled?.resume();
    await producers?.stop().catch(() => undefined);
    await stopWorkers(workers);
    await admin?.close().catch(() => undefined);
    await cluster.stop();
    rmSync(ledgerDir, { recursive: true, force: true });
  }
}

/** SIGTERMs every worker process (they finish their jobs first) and waits for them to exit. */
async function stopWorkers(workers: ReadonlySet<ChildProcess>): Promise<void> {
  await Promise.all([...workers].map((child) => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  })));
}
