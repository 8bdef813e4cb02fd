import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedisServer, type RedisServer } from '@jobs/dev-redis';
import { createProducer } from '@jobs/producer';
import type { QueueStats } from '@jobs/reclaimer';
import { Redis } from 'ioredis';
import { queueKeys } from '@jobs/core';
import { analyze, type ChaosFindings } from './analyze.ts';
import { analyzeCaps, type CapFindings } from './analyze-caps.ts';
import { CAPPED_CONCURRENCY, CHAOS_GROUPS, CHAOS_LIMITS, CHAOS_QUEUE, chaosKinds } from './kinds.ts';
import { readLedgers, type LedgerEntry } from './ledger.ts';
import { locateJobs } from './locate.ts';
import { startProducerLoops } from './producer-loops.ts';

const WORKER_SCRIPT = fileURLToPath(new URL('../dist/chaos-worker.js', import.meta.url));
const REDIS_ARGS = ['--appendonly', 'yes', '--appendfsync', 'always'];

/** Options of {@link runChaos}. */
export interface ChaosOptions {
  /** How long the faults go on. */
  seconds: number;
  /** Worker processes running at once. Default 3. */
  workers?: number;
  /** Producer loops. Default 2. */
  producers?: number;
  /** Partitions of the queue: 1 (default) is a plain queue. */
  partitions?: number;
  /**
   * Also run the limited kinds (a kind capped at {@link CAPPED_CONCURRENCY}, a grouped kind with
   * one job at a time per group) and check their caps. Default: on for a plain queue (limits
   * hold per partition, so the kind cap would not be global on a partitioned one).
   */
  limitedKinds?: boolean;
  /** Progress lines. Default: none. */
  log?: (line: string) => void;
}

/** What the run did and what it found. */
export interface ChaosReport extends ChaosFindings, Partial<CapFindings> {
  readonly seconds: number;
  readonly workerKills: number;
  readonly redisRestarts: number;
  readonly connectionKills: number;
  readonly pauses: number;
  /** Enqueues a producer had to retry (Redis away or paused). */
  readonly producerRetries: number;
  /** Acknowledged jobs of the limited kinds that were neither completed nor failed with a reason. */
  readonly lostLimited: number;
  /**
   * Slots of the concurrency caps still held (unexpired entries in the running sets) once the
   * queue has drained, when the run had limited kinds.
   */
  readonly slotsHeld?: number;
  /** The one line to print. */
  readonly summary: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What still waits to run, '' when nothing: every place a job can wait, parked and grouped jobs too. */
function describeWaiting(stats: QueueStats): string {
  const depths = {
    pending: stats.pendingDepth,
    prioritized: stats.prioritizedDepth,
    parked: stats.parkedDepth,
    groups: stats.groupsWaiting,
    processing: stats.processingDepth,
    delayed: stats.delayedDepth,
  };
  return Object.entries(depths).filter(([, depth]) => depth > 0).map(([name, depth]) => `${name}=${depth}`).join(' ');
}

/** The lines of lost jobs, each followed by the job's hash fields, the keys holding its id, its timeline and its ledger entries. */
async function explainLost(url: string, lost: readonly string[], ledger: readonly LedgerEntry[]): Promise<string[]> {
  if (lost.length === 0) return [];
  const client = new Redis(url);
  try {
    const explained: string[] = [];
    for (const line of lost) {
      const id = /\(([^)]+)\)/.exec(line)?.[1] ?? '';
      const partition = /\.p(\d+)$/.exec(id)?.[1];
      const prefix = queueKeys(partition === undefined ? CHAOS_QUEUE : `${CHAOS_QUEUE}:p${partition}`).prefix;
      const [where] = await locateJobs(client, prefix, [id]);
      const runs = ledger.filter((entry) => entry.id === id).map((entry) => `${entry.t} ${entry.e} pid ${entry.pid} #${entry.attempt}${entry.e === 'report' ? ` ${entry.outcome}` : ''}`);
      explained.push(`${line} ${JSON.stringify(where?.fields ?? {})} held by [${where?.heldBy.join(', ') ?? ''}] log [${where?.timeline.join('; ') ?? ''}] ledger [${runs.join('; ')}]`);
    }
    return explained;
  } finally {
    client.disconnect();
  }
}

/**
 * Runs producers and worker processes against a redis-server with an append-only file synced on
 * every write, and meanwhile: SIGKILLs random workers mid-job (and starts new ones), crashes and
 * restarts redis-server twice, kills every client connection, and pauses Redis for longer than
 * a lease. Then it lets the queue drain and checks what every acknowledged enqueue became.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const seconds = options.seconds;
  const partitions = options.partitions ?? 1;
  const ledgerDir = mkdtempSync(join(tmpdir(), 'jobs-chaos-'));
  let redis: RedisServer = await startRedisServer({ name: 'chaos', keepData: true, args: REDIS_ARGS });
  const { port, dataDir } = redis;
  const url = redis.url;
  const counts = { workerKills: 0, redisRestarts: 0, connectionKills: 0, pauses: 0, producerRetries: 0 };
  const workers = new Set<ChildProcess>();
  const kills = new Map<number, number>();
  const limitedKinds = options.limitedKinds ?? partitions === 1;
  if (limitedKinds) {
    const setup = createProducer({ redis: url, queue: CHAOS_QUEUE, kinds: chaosKinds });
    await setup.setLimits(CHAOS_LIMITS);
    await setup.close();
  }

  const startWorker = (): ChildProcess => {
    const child = spawn(process.execPath, [WORKER_SCRIPT], { env: { ...process.env, REDIS_URL: url, LEDGER_DIR: ledgerDir, PARTITIONS: String(partitions) }, stdio: ['ignore', 'ignore', 'inherit'] });
    workers.add(child);
    child.on('exit', () => workers.delete(child));
    return child;
  };
  for (let i = 0; i < (options.workers ?? 3); i += 1) startWorker();

  // Producers: each enqueue has its own idempotency key and is retried until acknowledged.
  const producers = startProducerLoops({
    redis: url,
    count: options.producers ?? 2,
    keyPrefix: 'chaos',
    partitions,
    limitedKinds,
    onRetry: () => {
      counts.producerRetries += 1;
    },
  });
  const acknowledged = producers.acknowledged;

  // The faults, spread over the run.
  const started = Date.now();
  const at = (share: number): Promise<void> => sleep(Math.max(0, started + share * seconds * 1_000 - Date.now()));
  const faults = (async () => {
    const schedule: [number, () => Promise<void>][] = [];
    for (let k = 1; k <= 7; k += 1) {
      schedule.push([k / 8 - 0.04, async () => {
        const victims = [...workers];
        const victim = victims[Math.floor(Math.random() * victims.length)];
        if (!victim) return;
        victim.kill('SIGKILL');
        if (victim.pid !== undefined) kills.set(victim.pid, Date.now());
        counts.workerKills += 1;
        startWorker();
        log(`killed worker ${victim.pid}`);
      }]);
    }
    for (const share of [0.3, 0.6]) {
      schedule.push([share, async () => {
        await redis.crash();
        await sleep(200);
        redis = await startRedisServer({ name: 'chaos', port, dataDir, keepData: true, args: REDIS_ARGS });
        counts.redisRestarts += 1;
        log('crashed and restarted redis-server');
      }]);
    }
    schedule.push([0.45, async () => {
      const admin = new Redis(url);
      await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
      admin.disconnect();
      counts.connectionKills += 1;
      log('killed every client connection');
    }]);
    schedule.push([0.75, async () => {
      const admin = new Redis(url);
      await admin.client('PAUSE', 2_500, 'ALL');
      admin.disconnect();
      counts.pauses += 1;
      log('paused Redis for 2.5 s, longer than a lease');
    }]);
    schedule.sort((a, b) => a[0] - b[0]);
    for (const [share, fault] of schedule) {
      await at(share);
      await fault();
    }
    await at(1);
  })();
  await faults;
  await producers.stop();
  log(`faults over after ${Math.round((Date.now() - started) / 1000)} s; ${acknowledged.size} jobs acknowledged; draining`);

  // Let the workers finish everything (a job can wait out its backoff), replacing any that die.
  // A producer reads jobs and counters as the checks need them: by the partition of each id, and
  // summed over the partitions.
  const admin = createProducer({ redis: url, queue: CHAOS_QUEUE, kinds: chaosKinds, partitions });
  const drainUntil = Date.now() + 120_000;
  let waiting = describeWaiting(await admin.stats());
  while (waiting !== '' && Date.now() <= drainUntil) {
    while (workers.size < (options.workers ?? 3)) startWorker();
    await sleep(200);
    waiting = describeWaiting(await admin.stats());
  }
  await Promise.all([...workers].map((child) => new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  })));

  const ledger = readLedgers(ledgerDir);
  const analyzed = await analyze(admin, acknowledged, ledger);
  await admin.close();
  const findings = {
    ...analyzed,
    lost: await explainLost(url, analyzed.lost, ledger),
    counterMismatches: waiting === '' ? analyzed.counterMismatches : [...analyzed.counterMismatches, `still waiting after the drain: ${waiting}`],
  };
  const limited = limitedKinds ? await checkLimited(url, ledger, kills) : undefined;
  const lostIds = new Set(findings.lost.map((line) => /\(([^)]+)\)/.exec(line)?.[1]));
  const lostLimited = [...producers.kinds].filter(([id, kind]) => kind !== 'step' && lostIds.has(id)).length;
  const limitedJobs = [...producers.kinds.values()].filter((kind) => kind !== 'step').length;
  await redis.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(ledgerDir, { recursive: true, force: true });
  const elapsed = Math.round((Date.now() - started) / 1000);
  const summary =
    `chaos: ${elapsed} s, ${partitions > 1 ? `partitions=${partitions} ` : ''}jobs=${findings.jobs} completed=${findings.completed} failed=${findings.failed} lost=${findings.lost.length} ` +
    `duplicate_executions=${findings.duplicateExecutions} worker_kills=${counts.workerKills} redis_restarts=${counts.redisRestarts} ` +
    `connection_kills=${counts.connectionKills} pauses=${counts.pauses} producer_retries=${counts.producerRetries} ` +
    `fencing_violations=${findings.fencingViolations.length} counter_mismatches=${findings.counterMismatches.length}` +
    (limited
      ? ` limited_jobs=${limitedJobs} lost_limited=${lostLimited} cap_violations=${limited.capViolations.length} group_cap_violations=${limited.groupCapViolations.length} ` +
        `max_capped_running=${limited.maxCappedRunning}/${CAPPED_CONCURRENCY} max_group_running=${limited.maxGroupRunning}/1 slots_held=${limited.slotsHeld}`
      : '');
  return { ...findings, ...limited, lostLimited, seconds: elapsed, ...counts, summary };
}

/**
 * The cap checks of the limited kinds: the ledger's overlaps (see analyze-caps.ts), and the
 * slots still held once the queue has drained: entries of the running sets whose lease has not
 * yet ended (Redis clock), which should be none.
 */
async function checkLimited(url: string, ledger: readonly LedgerEntry[], kills: ReadonlyMap<number, number>): Promise<CapFindings & { slotsHeld: number }> {
  const found = analyzeCaps(ledger, { cappedKind: 'capped', cap: CAPPED_CONCURRENCY, groupCap: 1, kills });
  const keys = queueKeys(CHAOS_QUEUE);
  const client = new Redis(url);
  try {
    const [seconds, micros] = (await client.time()) as [number | string, number | string];
    const now = Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
    let slotsHeld = await client.zcount(keys.kindRunning('capped'), `(${now}`, '+inf');
    for (const group of CHAOS_GROUPS) slotsHeld += await client.zcount(keys.groupRunning(group), `(${now}`, '+inf');
    return { ...found, slotsHeld };
  } finally {
    client.disconnect();
  }
}
