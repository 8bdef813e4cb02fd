import { describe, expect, test } from 'vitest';
import { repetitionsHeader, targets } from '../src/report.ts';
import type { BenchRun } from '../src/run-bench.ts';
import type { Measurement } from '../src/scenarios.ts';

type Figures = Record<string, Record<string, Measurement>>;

/** A run with one repetition per system and scenario, holding the given figures. */
function runOf(figures: Figures): BenchRun {
  const results = Object.fromEntries(Object.entries(figures).map(([scenario, bySystem]) => [scenario, Object.fromEntries(Object.entries(bySystem).map(([system, m]) => [system, [m]]))]));
  return { results, guarantees: {}, redisVersion: '7.0.0', options: { n: 100, reps: 1, latencyJobs: 100 } };
}

/** Figures that sit exactly on every one of issue 30's targets. */
const onTheLine: Figures = {
  'process-64': { '@jobs': { rate: 48_000, nodeCpuUs: 8, redisCpuUs: 7 }, BullMQ: { rate: 12_000 }, 'bee-queue': { rate: 20_000 } },
  'process-16': { '@jobs': { rate: 25_000 }, BullMQ: { rate: 10_000 } },
  'enqueue-bulk': { '@jobs': { rate: 300_000 }, BullMQ: { rate: 30_000 }, 'bee-queue': { rate: 100_000 } },
  'enqueue-64': { '@jobs': { rate: 70_000 }, 'bee-queue': { rate: 70_000 } },
  latency: { '@jobs': { doneP50: 0.5, doneP99: 1.5 }, 'bee-queue': { doneP50: 0.5 }, BullMQ: { doneP99: 3 } },
};

const metOf = (run: BenchRun): Record<string, boolean> => Object.fromEntries(targets(run).map((t) => [t.target, t.met]));

describe("issue 30's targets", () => {
  test('figures exactly on each target meet all ten', () => {
    const checks = targets(runOf(onTheLine));
    expect(checks).toHaveLength(10);
    expect(checks.filter((t) => !t.met).map((t) => t.target)).toEqual([]);
  });

  test('each target fails alone when its own figure is just past it', () => {
    const worse: [string, string, keyof Measurement, number, string][] = [
      ['process-64', 'BullMQ', 'rate', 12_001, 'process, concurrency 64: at least 4x BullMQ'],
      ['process-64', 'bee-queue', 'rate', 20_001, 'process, concurrency 64: at least 2.4x bee-queue'],
      ['process-16', '@jobs', 'rate', 24_999, 'process, concurrency 16: at least 2.5x BullMQ'],
      ['enqueue-bulk', 'BullMQ', 'rate', 30_001, 'bulk enqueue: at least 10x BullMQ'],
      ['enqueue-bulk', 'bee-queue', 'rate', 100_001, 'bulk enqueue: at least 3x bee-queue'],
      ['enqueue-64', '@jobs', 'rate', 69_999, "enqueue, 64 in flight: at least bee-queue's rate (1.0x)"],
      ['latency', '@jobs', 'doneP50', 0.51, "done latency p50: no more than bee-queue's"],
      ['latency', '@jobs', 'doneP99', 1.51, "done latency p99: at most half of BullMQ's"],
      ['process-64', '@jobs', 'nodeCpuUs', 8.1, 'worker (Node) CPU per job at concurrency 64: at most 8 µs'],
      ['process-64', '@jobs', 'redisCpuUs', 7.1, 'Redis CPU per job at concurrency 64: at most 7 µs'],
    ];
    for (const [scenario, system, field, value, target] of worse) {
      const figures = structuredClone(onTheLine);
      (figures[scenario] as Record<string, Measurement>)[system] = { ...figures[scenario]?.[system], [field]: value };
      const met = metOf(runOf(figures));
      expect(Object.entries(met).filter(([, ok]) => !ok).map(([name]) => name), `${scenario} ${system} ${field}`).toEqual([target]);
    }
  });

  test('the ratios come from the medians of the repetitions', () => {
    const run = runOf(onTheLine);
    const process64 = run.results['process-64'] as Record<string, Measurement[]>;
    process64['@jobs'] = [{ rate: 10_000 }, { rate: 48_000, nodeCpuUs: 8, redisCpuUs: 7 }, { rate: 90_000, nodeCpuUs: 3, redisCpuUs: 2 }];
    const check = targets(run).find((t) => t.target.startsWith('process, concurrency 64: at least 4x'));
    expect(check).toEqual({ target: 'process, concurrency 64: at least 4x BullMQ', value: '4.00x', met: true });
    const cpu = targets(run).find((t) => t.target.startsWith('worker (Node) CPU'));
    expect(cpu?.value).toBe('5.5 µs');
  });

  test('a system missing from the run meets no target that needs it', () => {
    const figures = structuredClone(onTheLine);
    delete figures['enqueue-bulk']?.BullMQ;
    const check = targets(runOf(figures)).find((t) => t.target === 'bulk enqueue: at least 10x BullMQ');
    expect(check).toEqual({ target: 'bulk enqueue: at least 10x BullMQ', value: '-', met: false });
  });
});

describe('the report header', () => {
  test('names the number of interleaved repetitions it is the median of', () => {
    expect(repetitionsHeader(5)).toBe('Medians of 5 interleaved repetitions');
    expect(repetitionsHeader(1)).toBe('One repetition, so single figures, not medians');
  });
});
