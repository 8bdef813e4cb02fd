/**
 * The floor comparison: the bare loop ({@link runBareLoop}) against the real @jobs worker (the
 * bench's @jobs adapter in `processPreEnqueued`, concurrency 64), each run on a redis-server of
 * its own started fresh for it, the two alternating within each repetition (who goes first
 * alternates too), so that a drift of the shared machine falls on both alike.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { startRedisServer } from '@jobs/dev-redis';
import { Redis } from 'ioredis';
import { jobsAdapter } from '../adapters/jobs.ts';
import { CpuMeter, type CpuPerJob } from '../cpu-meter.ts';
import { processPreEnqueued } from '../scenarios.ts';
import { preEnqueue, runBareLoop } from './bare-loop.ts';
import { assertAllCompleted } from './completion-check.ts';

/** The two loops compared. */
export type FloorSide = 'bare' | 'worker';

/** One run's figures: jobs per second, CPU per job in microseconds, and FCALLs per job, over its timed part. */
export interface FloorSample {
  rate: number;
  nodeCpuUs: number;
  redisCpuUs: number;
  /** Script calls the server ran per job (`INFO commandstats`): how well the completions were batched. */
  fcallsPerJob: number;
}

/** What {@link runFloor} measured: one sample per repetition and side. */
export interface FloorRun {
  n: number;
  reps: number;
  concurrency: number;
  bare: FloorSample[];
  worker: FloorSample[];
  /** Which side ran first in each repetition. */
  firstPerRep: FloorSide[];
}

/** Options of {@link runFloor}. */
export interface FloorOptions {
  /** Jobs per run. */
  n: number;
  /** Repetitions (each runs both sides once). */
  reps: number;
  /** Jobs per side in a first round that is not counted (JIT, the library's first load); 0: none. Default 0. */
  warmupJobs?: number;
  log?: (line: string) => void;
}

const CONCURRENCY = 64;

/** FCALLs `admin`'s server has run since it started. */
async function fcallCount(admin: Redis): Promise<number> {
  return Number(/^cmdstat_fcall:calls=(\d+)/m.exec(await admin.info('commandstats'))?.[1] ?? 0);
}

/** A CPU meter that also counts the FCALLs of the timed part (read outside it, as the CPU is). */
class FloorMeter extends CpuMeter {
  readonly #admin: Redis;
  #fcallsAtStart = 0;
  fcallsPerJob = Number.NaN;

  constructor(admin: Redis) {
    super([admin]);
    this.#admin = admin;
  }

  override async start(): Promise<void> {
    this.#fcallsAtStart = await fcallCount(this.#admin);
    await super.start();
  }

  override async stop(jobs: number): Promise<CpuPerJob> {
    const cpu = await super.stop(jobs);
    this.fcallsPerJob = ((await fcallCount(this.#admin)) - this.#fcallsAtStart) / jobs;
    return cpu;
  }
}

/** Times the bare loop on `url` for `n` pre-enqueued jobs, from opening its socket to the last completion. */
async function bareSample(url: string, meter: FloorMeter, queue: string, n: number): Promise<FloorSample> {
  await preEnqueue(url, queue, n);
  await meter.start();
  const started = performance.now();
  await runBareLoop(url, queue, n, CONCURRENCY);
  const rate = n / ((performance.now() - started) / 1_000);
  return { rate, ...(await meter.stop(n)), fcallsPerJob: meter.fcallsPerJob };
}

/** Times the real worker on `url` for `n` pre-enqueued jobs, as the bench's process-64 scenario does. */
async function workerSample(url: string, meter: FloorMeter, queue: string, n: number): Promise<FloorSample> {
  const adapter = await jobsAdapter(url, queue);
  try {
    const m = await processPreEnqueued(adapter, n, CONCURRENCY, meter);
    return { rate: m.rate as number, nodeCpuUs: m.nodeCpuUs as number, redisCpuUs: m.redisCpuUs as number, fcallsPerJob: meter.fcallsPerJob };
  } finally {
    await adapter.close();
  }
}

/** One side's run of `n` jobs on a redis-server of its own; checks that every job completed once. */
async function runSide(side: FloorSide, n: number): Promise<FloorSample> {
  const server = await startRedisServer({ name: `bench-floor-${side}` });
  const admin = new Redis(server.url);
  try {
    const queue = `floor-${side}-${randomBytes(4).toString('hex')}`;
    const meter = new FloorMeter(admin);
    const sample = side === 'bare' ? await bareSample(server.url, meter, queue, n) : await workerSample(server.url, meter, queue, n);
    await assertAllCompleted(server.url, queue, n);
    return sample;
  } finally {
    admin.disconnect();
    await server.stop();
  }
}

function sampleLine(sample: FloorSample): string {
  return `${Math.round(sample.rate)} jobs/s, Node ${sample.nodeCpuUs.toFixed(1)} µs/job, Redis ${sample.redisCpuUs.toFixed(1)} µs/job, ${(sample.fcallsPerJob * 100).toFixed(1)} FCALLs/100 jobs`;
}

/** Runs `reps` repetitions of both sides, alternating, after an optional uncounted warm-up round. */
export async function runFloor(options: FloorOptions): Promise<FloorRun> {
  const { n, reps, warmupJobs = 0, log = () => undefined } = options;
  if (warmupJobs > 0) {
    for (const side of ['bare', 'worker'] as const) {
      const sample = await runSide(side, warmupJobs);
      log(`warm-up ${side}: ${sampleLine(sample)}`);
    }
  }
  const run: FloorRun = { n, reps, concurrency: CONCURRENCY, bare: [], worker: [], firstPerRep: [] };
  for (let rep = 0; rep < reps; rep += 1) {
    const order: FloorSide[] = rep % 2 === 0 ? ['bare', 'worker'] : ['worker', 'bare'];
    run.firstPerRep.push(order[0] as FloorSide);
    for (const side of order) {
      const sample = await runSide(side, n);
      run[side].push(sample);
      log(`rep ${rep + 1}/${reps} ${side}: ${sampleLine(sample)}`);
    }
  }
  return run;
}
