/**
 * The scale benchmark: the process-pre-enqueued scenario with the workers spread over P worker
 * processes (concurrency C/P each), for each system, so that systems can be compared at 1, 4 and
 * 8 processes. The parent enqueues, forks, starts the clock, counts completions and stops.
 */
import { randomBytes } from 'node:crypto';
import { availableParallelism, cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { startRedisServer } from '@jobs/dev-redis';
import { Redis } from 'ioredis';
import type { AdapterFactory, BenchPayload } from '../adapter.ts';
import { CpuMeter } from '../cpu-meter.ts';
import { checkScaleOptions, type ScaleOptions } from './options.ts';
import { scaleSystem } from './systems.ts';
import { WorkerProcesses } from './worker-processes.ts';

/** One run of one system at one process count. CPU per job in microseconds. */
export interface ScaleMeasurement {
  system: string;
  processes: number;
  rep: number;
  /** Jobs per second, from `go` to the last completion the parent counted. */
  rate: number;
  /** Node CPU per job: the worker processes' (from `go` to `stop`) and the parent's own (timed part). */
  nodeCpuUs: number;
  /** The parent's share of {@link nodeCpuUs}: hearing the completions. */
  parentCpuUs: number;
  /** Redis CPU per job over the timed part (`INFO cpu`). */
  redisCpuUs: number;
  /** Distinct jobs completed: `n` when the run finished. */
  completed: number;
  /** Completions of a job already completed (or of no job enqueued), up to the children's stop. */
  duplicates: number;
  /** The worker processes' ids (all exited once the run returns). */
  pids: number[];
}

/** What {@link runScale} measured, with what it ran on. */
export interface ScaleRun {
  options: ScaleOptions;
  /** `os.availableParallelism()`: the cores this process may use. */
  cores: number;
  cpuModel: string;
  redisVersion: string;
  measurements: ScaleMeasurement[];
}

/** Options of {@link runScale}: {@link ScaleOptions} (defaults filled in) and where to run. */
export interface RunScaleOptions extends Partial<ScaleOptions> {
  /** A Redis to use instead of a private one (it is flushed before every run!). */
  redisUrl?: string;
  /** A run whose completions stop coming for this long fails. Default 60 s. */
  stallMs?: number;
  log?: (line: string) => void;
}

const ENQUEUE_BATCH = 1_000;

/**
 * Runs every system at every process count, `reps` times, on one redis-server; within a
 * repetition the systems take turns going first. Throws `ScaleUsageError` for options that
 * cannot run (a process count that does not divide the concurrency, an unknown system).
 */
export async function runScale(given: RunScaleOptions = {}): Promise<ScaleRun> {
  const { redisUrl, stallMs = 60_000, log = () => undefined, ...rest } = given;
  const options = checkScaleOptions(rest);
  const server = redisUrl === undefined ? await startRedisServer({ name: 'bench-scale' }) : undefined;
  const url = redisUrl ?? (server?.url as string);
  const admin = new Redis(url);
  const measurements: ScaleMeasurement[] = [];
  try {
    const redisVersion = /redis_version:(\S+)/.exec(await admin.info('server'))?.[1] ?? '?';
    for (const processes of options.processes) {
      for (let rep = 0; rep < options.reps; rep += 1) {
        // Rotate who goes first, so no system always runs on a cold or a warm machine.
        const order = options.systems.map((_, i) => options.systems[(i + rep) % options.systems.length] as string);
        for (const system of order) {
          const measurement = await measureOnce({ system, factory: scaleSystem(system) as AdapterFactory, processes, rep, options, url, admin, stallMs });
          measurements.push(measurement);
          log(`P=${processes} rep ${rep + 1}/${options.reps} ${system}: ${Math.round(measurement.rate)} jobs/s, CPU/job Node ${measurement.nodeCpuUs.toFixed(1)} µs (parent ${measurement.parentCpuUs.toFixed(1)}) + Redis ${measurement.redisCpuUs.toFixed(1)} µs`);
        }
      }
    }
    return { options, cores: availableParallelism(), cpuModel: cpus()[0]?.model.trim() ?? '?', redisVersion, measurements };
  } finally {
    admin.disconnect();
    await server?.stop();
  }
}

interface Once {
  system: string;
  factory: AdapterFactory;
  processes: number;
  rep: number;
  options: ScaleOptions;
  url: string;
  admin: Redis;
  stallMs: number;
}

/** Flushes Redis, pre-enqueues `n` jobs, and times P worker processes through them. */
async function measureOnce({ system, factory, processes, rep, options, url, admin, stallMs }: Once): Promise<ScaleMeasurement> {
  const { n } = options;
  await admin.flushall();
  const queue = `scale-${randomBytes(4).toString('hex')}`;
  const producer = await factory(url, queue);
  try {
    for (let first = 0; first < n; first += ENQUEUE_BATCH) {
      await producer.enqueueBulk(Array.from({ length: Math.min(ENQUEUE_BATCH, n - first) }, (_, i): BenchPayload => ({ n: first + i, sentAt: performance.now() })));
    }
  } finally {
    // Closed before the timed part: the parent only counts while the children work.
    await producer.close();
  }

  const seen = new Uint8Array(n);
  let completed = 0;
  let duplicates = 0;
  let allDone: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    allDone = resolve;
  });
  let lastProgress = performance.now();
  const children = new WorkerProcesses(processes, { system, redisUrl: url, queue, concurrency: options.concurrency / processes, warmup: options.warmup }, (ids) => {
    lastProgress = performance.now();
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || id >= n || seen[id] === 1) duplicates += 1;
      else {
        seen[id] = 1;
        completed += 1;
      }
    }
    if (completed === n) allDone();
  });
  let watchdog: NodeJS.Timeout | undefined;
  try {
    await children.ready();
    const meter = new CpuMeter([admin]);
    await meter.start();
    // The workers of every process were started paused and are ready: the clock starts at the
    // first claim, not at a start-up that P processes would pay P times on a few cores.
    const started = performance.now();
    lastProgress = started;
    children.go();
    const stalled = new Promise<never>((_, reject) => {
      watchdog = setInterval(() => {
        if (performance.now() - lastProgress > stallMs) reject(new Error(`${system} at ${processes} processes: no completion for ${stallMs} ms, ${completed}/${n} done`));
      }, Math.min(1_000, stallMs));
    });
    await Promise.race([all, children.failure, stalled]);
    const ms = performance.now() - started;
    clearInterval(watchdog);
    const parent = await meter.stop(n);
    const childCpu = await children.stop();
    const childUs = childCpu.reduce((sum, cpu) => sum + cpu.user + cpu.system, 0);
    return { system, processes, rep, rate: n / (ms / 1_000), nodeCpuUs: parent.nodeCpuUs + childUs / n, parentCpuUs: parent.nodeCpuUs, redisCpuUs: parent.redisCpuUs, completed, duplicates, pids: children.pids };
  } finally {
    clearInterval(watchdog);
    await children.kill();
  }
}
