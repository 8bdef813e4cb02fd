import { performance } from 'node:perf_hooks';
import type { BenchPayload, QueueAdapter } from './adapter.ts';
import type { CpuMeter, CpuPerJob } from './cpu-meter.ts';

/**
 * What one scenario measured. Rates in jobs per second; latencies in milliseconds; CPU per job
 * in microseconds, over the timed part (when the run was given a meter).
 */
export interface Measurement extends Partial<CpuPerJob> {
  rate?: number;
  startP50?: number;
  startP99?: number;
  doneP50?: number;
  doneP99?: number;
}

const payload = (n: number): BenchPayload => ({ n, sentAt: performance.now() });

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Times `work` (which handles `jobs` jobs) and, with a meter, the CPU it costs per job. */
async function timed(jobs: number, meter: CpuMeter | undefined, work: () => Promise<unknown>): Promise<Measurement> {
  await meter?.start();
  const started = performance.now();
  await work();
  const rate = jobs / ((performance.now() - started) / 1000);
  return { rate, ...(meter && (await meter.stop(jobs))) };
}

/** Enqueue `n` jobs one after another, each awaited. */
export async function enqueueSequential(adapter: QueueAdapter, n: number, meter?: CpuMeter): Promise<Measurement> {
  return timed(n, meter, async () => {
    for (let i = 0; i < n; i += 1) await adapter.enqueue(payload(i));
  });
}

/** Enqueue `n` jobs keeping `inFlight` calls outstanding. */
export async function enqueueConcurrent(adapter: QueueAdapter, n: number, inFlight: number, meter?: CpuMeter): Promise<Measurement> {
  let next = 0;
  return timed(n, meter, () =>
    Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < n) {
          const i = next;
          next += 1;
          await adapter.enqueue(payload(i));
        }
      }),
    ),
  );
}

/** Enqueue `n` jobs in batches of `batch`. */
export async function enqueueBulk(adapter: QueueAdapter, n: number, batch: number, meter?: CpuMeter): Promise<Measurement> {
  return timed(n, meter, async () => {
    for (let i = 0; i < n; i += batch) await adapter.enqueueBulk(Array.from({ length: Math.min(batch, n - i) }, (_, j) => payload(i + j)));
  });
}

/** Pre-enqueue `n` jobs, then time a worker of `concurrency` from its start to the last completion. */
export async function processPreEnqueued(adapter: QueueAdapter, n: number, concurrency: number, meter?: CpuMeter): Promise<Measurement> {
  for (let i = 0; i < n; i += 1_000) await adapter.enqueueBulk(Array.from({ length: Math.min(1_000, n - i) }, (_, j) => payload(i + j)));
  let done = 0;
  let resolveAll: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    resolveAll = resolve;
  });
  return timed(n, meter, async () => {
    await adapter.startWorkers(concurrency, () => undefined, () => {
      done += 1;
      if (done === n) resolveAll();
    });
    await all;
  });
}

/**
 * As {@link processPreEnqueued}, with the handler isolated in a pool of `concurrency` threads
 * (the adapter's `startIsolatedWorkers`): what a job pays for crossing to its thread and back.
 */
export async function processPreEnqueuedIsolated(adapter: QueueAdapter, n: number, concurrency: number, meter?: CpuMeter): Promise<Measurement> {
  const start = adapter.startIsolatedWorkers;
  if (start === undefined) throw new Error(`${adapter.name} has no isolated handlers`);
  for (let i = 0; i < n; i += 1_000) await adapter.enqueueBulk(Array.from({ length: Math.min(1_000, n - i) }, (_, j) => payload(i + j)));
  let done = 0;
  let resolveAll: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    resolveAll = resolve;
  });
  return timed(n, meter, async () => {
    await start.call(adapter, concurrency, () => {
      done += 1;
      if (done === n) resolveAll();
    });
    await all;
  });
}

/**
 * With a worker of `concurrency` running, enqueue `n` jobs at `ratePerSecond` and record how
 * long each took from its enqueue call to its handler's start, and to its recorded completion.
 */
export async function latencyAtRate(adapter: QueueAdapter, n: number, ratePerSecond: number, concurrency: number, meter?: CpuMeter): Promise<Measurement> {
  const starts: number[] = [];
  const dones: number[] = [];
  let resolveAll: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    resolveAll = resolve;
  });
  await adapter.startWorkers(
    concurrency,
    (job) => starts.push(performance.now() - job.sentAt),
    (job) => {
      dones.push(performance.now() - job.sentAt);
      if (dones.length === n) resolveAll();
    },
  );
  await meter?.start();
  const begin = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < n; i += 1) {
    const due = begin + (i * 1_000) / ratePerSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(adapter.enqueue(payload(i)));
  }
  await Promise.all(pending);
  await all;
  const cpu = meter && (await meter.stop(n));
  starts.sort((a, b) => a - b);
  dones.sort((a, b) => a - b);
  return { startP50: percentile(starts, 50), startP99: percentile(starts, 99), doneP50: percentile(dones, 50), doneP99: percentile(dones, 99), ...cpu };
}
