import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { startRedisCluster } from '@jobs/dev-redis';
import { createProducer, defineKinds } from '@jobs/producer';
import { createWorker } from '@jobs/worker';
import { Cluster, Redis } from 'ioredis';
import { CpuMeter, type CpuPerJobByServer } from './cpu-meter.ts';
import { median } from './median.ts';

const kinds = defineKinds({
  bench: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } },
});

/** Options of {@link runClusterBench}. */
export interface ClusterBenchOptions {
  /** Jobs per phase. Default 20,000. */
  n?: number;
  /** Partitions of the partitioned queue. Default 6 (two per master of the 3-master cluster). */
  partitions?: number;
  /** Repetitions; the two queues alternate who goes first. Default 3. */
  reps?: number;
  /**
   * Keep this process on CPU 0 and every redis-server on the other CPUs (Linux, `taskset`), so
   * that the OS cannot put the busy master on the benchmark's core. Default false.
   */
  pin?: boolean;
  /**
   * Producers and workers publish the recipe's events (their default). On a cluster a script
   * cannot see subscribers on other nodes, so every completion publishes, and each event crosses
   * the cluster bus to every node. false measures both queues without events. Default true.
   */
  events?: boolean;
  log?: (line: string) => void;
}

/** One queue's figures in one repetition. */
export interface PhaseResult {
  /** Jobs enqueued per second, 64 in flight. */
  enqueueRate: number;
  /** Pre-enqueued jobs processed per second by one worker at concurrency 64, timed from when it is ready. */
  processRate: number;
  /** How long the worker took to be ready (connected, layout checked, listening): not in the processing time. */
  workerStartMs: number;
  /** Script calls (FCALL, EVALSHA and EVAL) each master ran in this phase, by port. */
  scriptCallsByMaster: Record<number, number>;
  /** CPU time of every redis-server (masters and replicas, `INFO cpu`) per job enqueued, in µs. */
  enqueueRedisCpuUs: number;
  /** The same per job processed, from the worker's start to its last completion. */
  processRedisCpuUs: number;
  /**
   * Each master's share of {@link enqueueRedisCpuUs}, by port, in µs per job enqueued: the
   * busiest master's figure bounds the rate one master core allows.
   */
  enqueueRedisCpuUsByMaster: Record<number, number>;
  /** The replicas' share of {@link enqueueRedisCpuUs}, together, in µs per job enqueued. */
  enqueueReplicasCpuUs: number;
  /** Each master's share of {@link processRedisCpuUs}, by port, in µs per job processed. */
  processRedisCpuUsByMaster: Record<number, number>;
  /** The replicas' share of {@link processRedisCpuUs}, together, in µs per job processed. */
  processReplicasCpuUs: number;
  /** CPU time of this Node process (the producer, every thread) per job enqueued, in µs. */
  enqueueNodeCpuUs: number;
  /** The same per job processed (the worker, and the idle producer). */
  processNodeCpuUs: number;
}

/** The figures of a phase that the report compares. */
type Figure = 'enqueueRate' | 'processRate' | 'enqueueRedisCpuUs' | 'processRedisCpuUs' | 'enqueueNodeCpuUs' | 'processNodeCpuUs';

/** What {@link runClusterBench} measured. */
export interface ClusterBenchRun {
  single: PhaseResult[];
  partitioned: PhaseResult[];
  /** Master ports and the partitions each one holds. */
  placement: { port: number; partitions: string[] }[];
  options: Required<Omit<ClusterBenchOptions, 'log'>>;
  redisVersion: string;
}


/** Puts every thread of this process on CPU 0 (the redis-servers get the others). */
function pinThisProcess(cpuCount: number): void {
  if (cpuCount < 2) throw new Error('--pin needs at least 2 CPUs: one for this process, the others for Redis');
  execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', '0', String(process.pid)], { stdio: 'ignore' });
}

/** Script calls per master since the last reset. */
async function scriptCalls(masters: readonly Redis[]): Promise<Record<number, number>> {
  const calls: Record<number, number> = {};
  for (const master of masters) {
    const info = await master.info('commandstats');
    let total = 0;
    for (const match of info.matchAll(/cmdstat_(?:fcall|evalsha|eval):calls=(\d+)/g)) total += Number(match[1]);
    calls[master.options.port as number] = total;
  }
  return calls;
}

/**
 * What a phase asks for figures: the masters (script calls) and a meter of every node's CPU,
 * given the masters first, in the same order, then the replicas.
 */
interface Servers {
  masters: readonly Redis[];
  meter: CpuMeter;
}

/** Splits a phase's Redis CPU per job into each master's (by port) and the replicas' together. */
function byRole(cpu: CpuPerJobByServer, masters: readonly Redis[]): { byMaster: Record<number, number>; replicas: number } {
  const byMaster: Record<number, number> = {};
  masters.forEach((master, i) => {
    byMaster[master.options.port as number] = cpu.redisCpuUsByServer[i] ?? 0;
  });
  const replicas = cpu.redisCpuUsByServer.slice(masters.length).reduce((sum, us) => sum + us, 0);
  return { byMaster, replicas };
}

async function phase(url: string, servers: Servers, queue: string, partitions: number, n: number, events: boolean): Promise<PhaseResult> {
  const { masters, meter } = servers;
  await Promise.all(masters.map((master) => master.config('RESETSTAT')));
  const producer = createProducer({ redis: url, queue, kinds, partitions, events });
  // Connected and checked before the clock starts, as a long-lived producer is: the first call
  // to each partition checks the server (INFO, the partition count) and may open a connection
  // to its master, one-time costs that a partitioned producer pays six times and a plain one
  // once. stats() touches every partition and adds no job.
  await producer.stats();
  let next = 0;
  await meter.start();
  const enqueueStarted = performance.now();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next < n) {
        next += 1;
        await producer.enqueue('bench', { n: next });
      }
    }),
  );
  const enqueueRate = n / ((performance.now() - enqueueStarted) / 1000);
  const enqueueCpu = await meter.stopByServer(n);
  let done = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  // Timed from when the worker is ready, as a long-lived worker is: starting up (connecting to
  // the cluster, checking each partition, subscribing to each partition's wake channel) is a
  // one-time cost that a partitioned worker pays per partition and a plain one once.
  const created = performance.now();
  const worker = createWorker({ redis: url, queue, kinds, partitions, events, concurrency: 64, reclaimIntervalMs: 0, completedHistory: 1_000, handlers: { bench: () => null } });
  worker.on('completed', () => {
    done += 1;
    if (done === n) finish();
  });
  await worker.ready();
  const processStarted = performance.now();
  const workerStartMs = processStarted - created;
  // Read after the clock starts, as the worker is already claiming: the rate stays timed from ready.
  await meter.start();
  await finished;
  const processRate = n / ((performance.now() - processStarted) / 1000);
  const processCpu = await meter.stopByServer(n);
  const scriptCallsByMaster = await scriptCalls(masters);
  await worker.close();
  await producer.close();
  const enqueueShares = byRole(enqueueCpu, masters);
  const processShares = byRole(processCpu, masters);
  return {
    enqueueRate,
    processRate,
    workerStartMs,
    scriptCallsByMaster,
    enqueueRedisCpuUs: enqueueCpu.redisCpuUs,
    processRedisCpuUs: processCpu.redisCpuUs,
    enqueueRedisCpuUsByMaster: enqueueShares.byMaster,
    enqueueReplicasCpuUs: enqueueShares.replicas,
    processRedisCpuUsByMaster: processShares.byMaster,
    processReplicasCpuUs: processShares.replicas,
    enqueueNodeCpuUs: enqueueCpu.nodeCpuUs,
    processNodeCpuUs: processCpu.nodeCpuUs,
  };
}

/**
 * A plain queue against a partitioned one on a real 3-master cluster (6 nodes, on this
 * machine): enqueue and process rates, and how the script calls spread over the masters.
 */
export async function runClusterBench(options: ClusterBenchOptions = {}): Promise<ClusterBenchRun> {
  const n = options.n ?? 20_000;
  const partitions = options.partitions ?? 6;
  const reps = options.reps ?? 3;
  const pin = options.pin ?? false;
  const events = options.events ?? true;
  const log = options.log ?? (() => undefined);
  // Counted before pinning: once pinned, this process sees one CPU.
  const cpuCount = availableParallelism();
  if (pin) pinThisProcess(cpuCount);
  const cluster = await startRedisCluster(pin ? { cpus: `1-${cpuCount - 1}` } : {});
  const admin = new Cluster(cluster.seeds.map((seed) => ({ ...seed })));
  try {
    const topology = await cluster.masters();
    const masters = topology.map((master) => new Redis({ host: '127.0.0.1', port: master.port }));
    const replicaPorts = cluster.nodes.map((node) => node.port).filter((port) => !topology.some((master) => master.port === port));
    const nodes = [...topology.map((master) => master.port), ...replicaPorts].map((port) => new Redis({ host: '127.0.0.1', port }));
    const servers: Servers = { masters, meter: new CpuMeter(nodes) };
    const redisVersion = /redis_version:(\S+)/.exec(await (masters[0] as Redis).info('server'))?.[1] ?? '?';
    const single: PhaseResult[] = [];
    const partitioned: PhaseResult[] = [];
    // A warm-up of each, not recorded: the first run of either would pay for compiling the
    // code both share, and the plain queue goes first in the first repetition.
    for (const parts of [1, partitions]) {
      await Promise.all(masters.map((master) => master.flushall()));
      await phase(cluster.url, servers, parts === 1 ? 'bench-plain' : 'bench-parted', parts, Math.min(n, 5_000), events);
    }
    log('warmed up');
    for (let rep = 0; rep < reps; rep += 1) {
      const order = rep % 2 === 0 ? (['single', 'partitioned'] as const) : (['partitioned', 'single'] as const);
      for (const which of order) {
        await Promise.all(masters.map((master) => master.flushall()));
        const result = which === 'single' ? await phase(cluster.url, servers, 'bench-plain', 1, n, events) : await phase(cluster.url, servers, 'bench-parted', partitions, n, events);
        (which === 'single' ? single : partitioned).push(result);
        log(`rep ${rep + 1}/${reps} ${which}: enqueue ${Math.round(result.enqueueRate)}/s, process ${Math.round(result.processRate)}/s (worker ready in ${Math.round(result.workerStartMs)} ms), CPU per job enqueued ${result.enqueueNodeCpuUs.toFixed(1)} + ${result.enqueueRedisCpuUs.toFixed(1)} µs and processed ${result.processNodeCpuUs.toFixed(1)} + ${result.processRedisCpuUs.toFixed(1)} µs (Node + Redis), of which by master ${shares(result.enqueueRedisCpuUsByMaster, result.enqueueReplicasCpuUs)} and ${shares(result.processRedisCpuUsByMaster, result.processReplicasCpuUs)}, script calls by master ${JSON.stringify(result.scriptCallsByMaster)}`);
      }
    }
    const placement = await Promise.all(
      topology.map(async (master) => {
        const names: string[] = [];
        for (let i = 0; i < partitions; i += 1) {
          const slot = Number(await admin.cluster('KEYSLOT', `queue:{bench-parted:p${i}}:pending`));
          if (master.slots.some(([from, to]) => slot >= from && slot <= to)) names.push(`bench-parted:p${i}`);
        }
        return { port: master.port, partitions: names };
      }),
    );
    for (const client of [...masters, ...nodes]) client.disconnect();
    return { single, partitioned, placement, options: { n, partitions, reps, pin, events }, redisVersion };
  } finally {
    admin.disconnect();
    await cluster.stop();
  }
}

/** A phase's Redis CPU per job by master, for the log: ":port 1.2 µs, …, replicas 3.4 µs". */
function shares(byMaster: Record<number, number>, replicas: number): string {
  return [...Object.entries(byMaster).map(([port, us]) => `:${port} ${us.toFixed(1)}`), `replicas ${replicas.toFixed(1)} µs`].join(', ');
}

/** The two timed phases, with the names of their per-master figures. */
const PHASES = [
  { name: 'enqueue', byMaster: 'enqueueRedisCpuUsByMaster', replicas: 'enqueueReplicasCpuUs', total: 'enqueueRedisCpuUs' },
  { name: 'process', byMaster: 'processRedisCpuUsByMaster', replicas: 'processReplicasCpuUs', total: 'processRedisCpuUs' },
] as const;

/** One repetition's busiest master in a phase: its port and its CPU per job. */
function busiestMaster(result: PhaseResult, phase: (typeof PHASES)[number]): { port: number; us: number } {
  let busiest = { port: 0, us: -1 };
  for (const [port, us] of Object.entries(result[phase.byMaster])) if (us > busiest.us) busiest = { port: Number(port), us };
  return busiest;
}

/**
 * The per-master section of the report: each master's Redis CPU per job in each phase, and the
 * ceiling the busiest master's figure implies, plain against partitioned.
 */
function masterCpuLines(run: ClusterBenchRun): string[] {
  const ports = run.placement.map((master) => master.port);
  const us = (value: number): string => `${value.toFixed(1)} µs`;
  const queues = [
    { label: 'plain (one slot)', results: run.single },
    { label: `${run.options.partitions} partitions`, results: run.partitioned },
  ];
  const lines = [
    'Redis CPU per job by master: the same readings (`INFO cpu` of each node before and after each timed phase, divided by its jobs), master by master, the three replicas together, and the total of all six. Medians over the repetitions, column by column, so a row need not add up to its total exactly; within one repetition it does.',
    '',
    `| queue | phase | ${ports.map((port) => `:${port}`).join(' | ')} | replicas | total |`,
    `|---|---|${ports.map(() => '---:|').join('')}---:|---:|`,
  ];
  for (const { label, results } of queues) {
    for (const phase of PHASES) {
      const masters = ports.map((port) => us(median(results.map((result) => result[phase.byMaster][port] ?? 0))));
      lines.push(`| ${label} | ${phase.name} | ${masters.join(' | ')} | ${us(median(results.map((result) => result[phase.replicas])))} | ${us(median(results.map((result) => result[phase.total])))} |`);
    }
  }
  const perPhase = PHASES.map((phase) => {
    const [plain, parted] = queues.map(({ label, results }) => {
      const busiest = results.map((result) => busiestMaster(result, phase));
      const cpu = median(busiest.map((master) => master.us));
      const where = [...new Set(busiest.map((master) => `:${master.port}`))].join(' or ');
      return { text: `${label} ${us(cpu)} (${where}), ceiling ${Math.round(1e6 / cpu).toLocaleString('en-US')} jobs/s`, ceiling: 1e6 / cpu };
    }) as [{ text: string; ceiling: number }, { text: string; ceiling: number }];
    return `${phase.name}: ${plain.text}; ${parted.text} (${(parted.ceiling / plain.ceiling).toFixed(2)}x the plain queue's)`;
  });
  lines.push(
    '',
    `Busiest master's Redis CPU per job (each repetition's highest master, median) and the ceiling it implies (1e6 / those µs: the jobs/s one fully busy master core would allow): ${perPhase.join('; ')}. The ceiling is an estimate from CPU per job, not a measured rate: it assumes that master has a core to itself and costs the same per job at that rate, and it leaves out the clients and the replicas.`,
  );
  return lines;
}

/**
 * Partitioned/plain within each repetition (the two ran back to back), as "median (lowest to
 * highest)": on a shared machine the spread between repetitions can exceed the effect measured.
 */
function pairedRatios(run: ClusterBenchRun, field: Figure): string {
  const ratios = run.partitioned.map((result, rep) => result[field] / ((run.single[rep] as PhaseResult)[field]));
  return `${median(ratios).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}x)`;
}

/** The results as Markdown: medians, the ratio, and the spread of script calls over masters. */
export function clusterReport(run: ClusterBenchRun): string {
  const figure = (results: PhaseResult[], field: Figure): number => median(results.map((result) => result[field]));
  const rates = (results: PhaseResult[]): string => `${Math.round(figure(results, 'enqueueRate')).toLocaleString('en-US')} | ${Math.round(figure(results, 'processRate')).toLocaleString('en-US')}`;
  const cpuFields: Figure[] = ['enqueueNodeCpuUs', 'enqueueRedisCpuUs', 'processNodeCpuUs', 'processRedisCpuUs'];
  const cpu = (results: PhaseResult[]): string => cpuFields.map((field) => `${figure(results, field).toFixed(1)} µs`).join(' | ');
  const ratio = (field: Figure): string => `${(figure(run.partitioned, field) / figure(run.single, field)).toFixed(2)}x`;
  const settings = [run.options.events ? 'events on (the default; on a cluster each completion\'s event crosses the cluster bus to every node)' : 'events off (`events: false`)'];
  if (run.options.pin) settings.push('pinned: Node on CPU 0, every redis-server on the other CPUs');
  const lines = [
    `Cluster: 3 masters + 3 replicas (redis-server ${run.redisVersion}) on this machine; ${run.options.n.toLocaleString('en-US')} jobs per phase, ${run.options.reps} repetitions (medians), one Node process producing (64 in flight) and one worker (concurrency 64); ${settings.join('; ')}.`,
    '',
    `| queue | enqueue (jobs/s) | process (jobs/s) |`,
    `|---|---:|---:|`,
    `| plain (one slot) | ${rates(run.single)} |`,
    `| ${run.options.partitions} partitions | ${rates(run.partitioned)} |`,
    `| partitioned / plain | ${ratio('enqueueRate')} | ${ratio('processRate')} |`,
    `| the same, repetition by repetition | ${pairedRatios(run, 'enqueueRate')} | ${pairedRatios(run, 'processRate')} |`,
    '',
    'CPU per job: user and system CPU time over each timed phase, divided by its jobs, of this Node process (producer or worker, every thread) and of all six redis-servers together (`INFO cpu`): the work done, whoever the OS ran when.',
    '',
    `| CPU per job | enqueue: Node | enqueue: Redis | process: Node | process: Redis |`,
    `|---|---:|---:|---:|---:|`,
    `| plain (one slot) | ${cpu(run.single)} |`,
    `| ${run.options.partitions} partitions | ${cpu(run.partitioned)} |`,
    `| partitioned / plain | ${cpuFields.map(ratio).join(' | ')} |`,
    `| the same, repetition by repetition | ${cpuFields.map((field) => pairedRatios(run, field)).join(' | ')} |`,
    '',
    ...masterCpuLines(run),
    '',
    `Processing is timed from when the worker is ready (\`worker.ready()\`): its start-up took ${Math.round(median(run.single.map((result) => result.workerStartMs)))} ms for the plain queue and ${Math.round(median(run.partitioned.map((result) => result.workerStartMs)))} ms for the partitioned one (medians), not counted.`,
    '',
    'Script calls (FCALL, EVALSHA and EVAL, from `INFO commandstats`) per master in the last repetition:',
    '',
    '| master | partitions it holds | plain queue | partitioned queue |',
    '|---|---|---:|---:|',
  ];
  const lastSingle = run.single.at(-1)?.scriptCallsByMaster ?? {};
  const lastParted = run.partitioned.at(-1)?.scriptCallsByMaster ?? {};
  for (const { port, partitions } of run.placement) {
    lines.push(`| :${port} | ${partitions.join(', ') || '-'} | ${(lastSingle[port] ?? 0).toLocaleString('en-US')} | ${(lastParted[port] ?? 0).toLocaleString('en-US')} |`);
  }
  return `${lines.join('\n')}\n`;
}
