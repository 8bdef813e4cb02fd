import { randomBytes } from 'node:crypto';
import { startRedisServer } from '@jobs/dev-redis';
import { Redis } from 'ioredis';
import type { AdapterFactory, QueueAdapter } from './adapter.ts';
import { CpuMeter } from './cpu-meter.ts';
import { beeQueueAdapter } from './adapters/bee-queue.ts';
import { bullmqAdapter } from './adapters/bullmq.ts';
import { jobsAdapter } from './adapters/jobs.ts';
import { rawListsAdapter } from './adapters/raw-lists.ts';
import { enqueueBulk, enqueueConcurrent, enqueueSequential, latencyAtRate, processPreEnqueued, processPreEnqueuedIsolated, type Measurement } from './scenarios.ts';

/** The systems compared, @jobs first. */
export const SYSTEMS: readonly AdapterFactory[] = [jobsAdapter, bullmqAdapter, beeQueueAdapter, rawListsAdapter];

/** Options of {@link runBenchmarks}. */
export interface BenchOptions {
  /** Jobs per throughput scenario. Default 10,000. */
  n?: number;
  /** Repetitions; systems are interleaved within each. Default 5. */
  reps?: number;
  /** Jobs in the latency scenario (sent at 1000/s). Default 5,000. */
  latencyJobs?: number;
  /** A Redis to use instead of a private one (it is flushed between runs!). */
  redisUrl?: string;
  /** Run only these scenario ids (default: all). */
  scenarios?: readonly string[];
  /** Run only these systems, by adapter name (default: all). */
  systems?: readonly string[];
  log?: (line: string) => void;
}

/** A scenario: a name, what it does, and how to run it on one adapter. */
interface Scenario {
  id: string;
  title: string;
  run: (adapter: QueueAdapter, n: number, latencyJobs: number, meter: CpuMeter) => Promise<Measurement>;
  /** Jobs run first on the same adapter and not timed. */
  warmup: (adapter: QueueAdapter) => Promise<unknown>;
  /** The systems it runs on, by adapter name (default: all). */
  systems?: readonly string[];
}

export const SCENARIOS: readonly Scenario[] = [
  { id: 'enqueue-1', title: 'enqueue, 1 in flight', run: (a, n, _l, m) => enqueueSequential(a, Math.ceil(n / 5), m), warmup: (a) => enqueueSequential(a, 200) },
  { id: 'enqueue-64', title: 'enqueue, 64 in flight', run: (a, n, _l, m) => enqueueConcurrent(a, n, 64, m), warmup: (a) => enqueueConcurrent(a, 500, 64) },
  { id: 'enqueue-bulk', title: 'bulk enqueue, batches of 1000', run: (a, n, _l, m) => enqueueBulk(a, n * 2, 1_000, m), warmup: (a) => enqueueBulk(a, 1_000, 1_000) },
  { id: 'process-1', title: 'process pre-enqueued, concurrency 1', run: (a, n, _l, m) => processPreEnqueued(a, Math.ceil(n / 5), 1, m), warmup: async () => undefined },
  { id: 'process-16', title: 'process pre-enqueued, concurrency 16', run: (a, n, _l, m) => processPreEnqueued(a, n, 16, m), warmup: async () => undefined },
  { id: 'process-64', title: 'process pre-enqueued, concurrency 64', run: (a, n, _l, m) => processPreEnqueued(a, n, 64, m), warmup: async () => undefined },
  { id: 'latency', title: 'latency at 1000 jobs/s, concurrency 64', run: (a, _n, l, m) => latencyAtRate(a, l, 1_000, 64, m), warmup: async () => undefined },
];

/**
 * Scenarios run only when named (`--only`), on the systems they list, and left out of the
 * report's tables.
 */
export const OPT_IN_SCENARIOS: readonly Scenario[] = [
  {
    id: 'process-16-isolated',
    title: 'process pre-enqueued, concurrency 16, handler isolated in 16 threads',
    run: (a, n, _l, m) => processPreEnqueuedIsolated(a, n, 16, m),
    warmup: async () => undefined,
    systems: ['@jobs'],
  },
];

/** Every measurement: scenario id -> system name -> one per repetition. */
export type BenchResults = Record<string, Record<string, Measurement[]>>;

/** What a run produced, with what it ran on. */
export interface BenchRun {
  results: BenchResults;
  guarantees: Record<string, string>;
  redisVersion: string;
  options: Required<Pick<BenchOptions, 'n' | 'reps' | 'latencyJobs'>>;
}

/** Runs every scenario for every system, interleaved, `reps` times, on one redis-server. */
export async function runBenchmarks(options: BenchOptions = {}): Promise<BenchRun> {
  const n = options.n ?? 10_000;
  const reps = options.reps ?? 5;
  const latencyJobs = options.latencyJobs ?? 5_000;
  const log = options.log ?? (() => undefined);
  const server = options.redisUrl ? undefined : await startRedisServer({ name: 'bench' });
  const url = options.redisUrl ?? (server?.url as string);
  const admin = new Redis(url);
  const meter = new CpuMeter([admin]);
  const redisVersion = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1] ?? '?';
  const results: BenchResults = {};
  const guarantees: Record<string, string> = {};
  const named = OPT_IN_SCENARIOS.filter((scenario) => options.scenarios?.includes(scenario.id));
  const scenarios = [...SCENARIOS.filter((scenario) => !options.scenarios || options.scenarios.includes(scenario.id)), ...named];
  try {
    for (let rep = 0; rep < reps; rep += 1) {
      for (const scenario of scenarios) {
        // Rotate who goes first, so no system always runs on a cold or a warm machine.
        const order = SYSTEMS.map((_, i) => SYSTEMS[(i + rep) % SYSTEMS.length] as AdapterFactory);
        for (const factory of order) {
          await admin.flushall();
          const adapter = await factory(url, `bench-${randomBytes(4).toString('hex')}`);
          if ((options.systems && !options.systems.includes(adapter.name)) || (scenario.systems && !scenario.systems.includes(adapter.name))) {
            await adapter.close();
            continue;
          }
          guarantees[adapter.name] = adapter.guarantees;
          try {
            await scenario.warmup(adapter);
            const measurement = await scenario.run(adapter, n, latencyJobs, meter);
            ((results[scenario.id] ??= {})[adapter.name] ??= []).push(measurement);
            log(`rep ${rep + 1}/${reps} ${scenario.id} ${adapter.name}: ${JSON.stringify(roundAll(measurement))}`);
          } finally {
            await adapter.close();
          }
        }
      }
    }
  } finally {
    admin.disconnect();
    await server?.stop();
  }
  return { results, guarantees, redisVersion, options: { n, reps, latencyJobs } };
}

function roundAll(measurement: Measurement): Record<string, number> {
  return Object.fromEntries(Object.entries(measurement).map(([key, value]) => [key, Math.round((value as number) * 100) / 100]));
}
