/**
 * Paired comparison of this checkout's @jobs with another checkout's (built), on one private
 * redis-server, in one process: small blocks of the same scenario alternate between the two
 * (who goes first alternates too), and each side's time and CPU are the sums over its blocks.
 * On a shared machine whose speed drifts by 2x within minutes, the drift then falls on both
 * sides alike, which separate runs of `npm run bench` cannot promise.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startRedisServer } from '@jobs/dev-redis';
import { Redis } from 'ioredis';
import { CpuMeter } from './cpu-meter.ts';

/** The scenarios a paired run knows: enqueue with 64 in flight, and processing at 16 or 64. */
export const PAIRED_SCENARIOS = ['enqueue-64', 'process-16', 'process-64'] as const;
export type PairedScenario = (typeof PAIRED_SCENARIOS)[number];

/** One side's sums over its blocks. */
export interface SideTotals {
  jobs: number;
  ms: number;
  nodeCpuUs: number;
  redisCpuUs: number;
}

/** A scenario's result: this checkout's totals, the other's, and which went first per block. */
export interface PairedResult {
  scenario: PairedScenario;
  head: SideTotals;
  base: SideTotals;
  firstPerBlock: ('head' | 'base')[];
}

interface Side {
  name: 'head' | 'base';
  // Loosely typed: the other checkout's packages are loaded by path and may differ in details.
  createProducer: (options: Record<string, unknown>) => { enqueue(kind: string, payload: unknown): Promise<string>; enqueueMany(jobs: unknown[]): Promise<unknown>; close(): Promise<void> };
  createWorker: (options: Record<string, unknown>) => { on(event: 'completed', listener: () => void): void; close(options?: { graceMs?: number }): Promise<void> };
  kinds: unknown;
  /** Options this side's producers and workers get besides the scenario's (a feature turned on). */
  options: Record<string, unknown>;
  totals: SideTotals;
}

const SCHEMA = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };

async function loadSide(name: 'head' | 'base', root: string | undefined, options: Record<string, unknown> = {}): Promise<Side> {
  const load = (pkg: string): Promise<Record<string, unknown>> =>
    root === undefined ? import(`@jobs/${pkg}`) : import(pathToFileURL(join(root, 'packages', pkg, 'dist', 'index.js')).href);
  const producer = await load('producer');
  const worker = await load('worker');
  const defineKinds = producer.defineKinds as (kinds: Record<string, unknown>) => unknown;
  return {
    name,
    createProducer: producer.createProducer as Side['createProducer'],
    createWorker: worker.createWorker as Side['createWorker'],
    kinds: defineKinds({ bench: { schema: SCHEMA } }),
    options,
    totals: { jobs: 0, ms: 0, nodeCpuUs: 0, redisCpuUs: 0 },
  };
}

/** Runs one block on `side`: the timed part only is added to its totals. */
async function block(side: Side, scenario: PairedScenario, url: string, admin: Redis, jobs: number, queue: string): Promise<void> {
  const producer = side.createProducer({ redis: url, queue, kinds: side.kinds, ...side.options });
  let worker: ReturnType<Side['createWorker']> | undefined;
  let timed: () => Promise<void>;
  if (scenario === 'enqueue-64') {
    timed = async () => {
      let next = 0;
      await Promise.all(Array.from({ length: 64 }, async () => { while (next < jobs) await producer.enqueue('bench', { n: next++ }); }));
    };
  } else {
    for (let first = 0; first < jobs; first += 1_000) await producer.enqueueMany(Array.from({ length: Math.min(1_000, jobs - first) }, (_, i) => ({ kind: 'bench', payload: { n: first + i } })));
    // From the worker's start to the last completion.
    timed = () =>
      new Promise<void>((resolve) => {
        let done = 0;
        worker = side.createWorker({ redis: url, queue, kinds: side.kinds, concurrency: scenario === 'process-16' ? 16 : 64, completedHistory: 1_000, completedTtlSeconds: 0, reclaimIntervalMs: 0, handlers: { bench: () => null }, ...side.options });
        worker.on('completed', () => { if (++done === jobs) resolve(); });
      });
  }
  const meter = new CpuMeter([admin]);
  await meter.start();
  const start = performance.now();
  await timed();
  const end = performance.now();
  const cpu = await meter.stop(jobs);
  side.totals.ms += end - start;
  side.totals.nodeCpuUs += cpu.nodeCpuUs * jobs;
  side.totals.redisCpuUs += cpu.redisCpuUs * jobs;
  side.totals.jobs += jobs;
  await worker?.close({ graceMs: 1_000 });
  await producer.close();
  await admin.flushall();
}

/** Options of {@link runPaired}. */
export interface PairedOptions {
  /** The other checkout's root (its packages built). */
  base: string;
  /** This side's root; by default the workspace's own packages. */
  head?: string;
  scenarios?: readonly PairedScenario[];
  /** Measured blocks per side and scenario (one unmeasured warm-up block each comes first). */
  blocks?: number;
  jobsPerBlock?: number;
  /**
   * Options for this side's producers and workers only, such as `{ metricsHistory: true }`: with
   * `base` the same checkout, the pairs measure what a feature costs when it is on.
   */
  headOptions?: Record<string, unknown>;
  log?: (line: string) => void;
}

/** Runs each scenario as alternating blocks of this checkout and the other one. */
export async function runPaired(options: PairedOptions): Promise<PairedResult[]> {
  const { blocks = 16, jobsPerBlock = 4_000, log = () => undefined } = options;
  const server = await startRedisServer({ name: 'bench-paired' });
  const admin = new Redis(server.url);
  const results: PairedResult[] = [];
  try {
    for (const scenario of options.scenarios ?? PAIRED_SCENARIOS) {
      const head = await loadSide('head', options.head, options.headOptions);
      const base = await loadSide('base', options.base);
      const firstPerBlock: ('head' | 'base')[] = [];
      for (let b = -1; b < blocks; b += 1) {
        const order = b % 2 === 0 ? [head, base] : [base, head];
        if (b >= 0) firstPerBlock.push(order[0]?.name as 'head' | 'base');
        for (const side of order) await block(side, scenario, server.url, admin, jobsPerBlock, `paired-${side.name}-${b + 1}`);
        // The warm-up block (JIT, connections, the function library) is not counted.
        if (b === -1) for (const side of order) side.totals = { jobs: 0, ms: 0, nodeCpuUs: 0, redisCpuUs: 0 };
      }
      results.push({ scenario, head: head.totals, base: base.totals, firstPerBlock });
      log(`${scenario}: ${summaryLine(results.at(-1) as PairedResult)}`);
    }
  } finally {
    admin.disconnect();
    await server.stop();
  }
  return results;
}

function summaryLine(result: PairedResult): string {
  const rate = (t: SideTotals): number => t.jobs / (t.ms / 1_000);
  return `rate ${(rate(result.head) / rate(result.base)).toFixed(3)}x, Node CPU ${(result.head.nodeCpuUs / result.base.nodeCpuUs).toFixed(3)}x, Redis CPU ${(result.head.redisCpuUs / result.base.redisCpuUs).toFixed(3)}x`;
}

/** The results as a Markdown table: per scenario, each side's rate and CPU per job, and the ratios. */
export function pairedTable(results: readonly PairedResult[]): string {
  const rate = (t: SideTotals): string => `${Math.round(t.jobs / (t.ms / 1_000)).toLocaleString('en-US')}/s`;
  const cpu = (t: SideTotals): string => `${(t.nodeCpuUs / t.jobs).toFixed(1)} + ${(t.redisCpuUs / t.jobs).toFixed(1)}`;
  const lines = ['| scenario | this checkout | CPU µs/job Node + Redis | base | CPU µs/job Node + Redis | this / base |', '|---|---:|---:|---:|---:|---|'];
  for (const r of results) lines.push(`| ${r.scenario} | ${rate(r.head)} | ${cpu(r.head)} | ${rate(r.base)} | ${cpu(r.base)} | ${summaryLine(r)} |`);
  return lines.join('\n');
}
