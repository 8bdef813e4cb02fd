import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { markdownReport, svgChart, targets } from '../src/report.ts';
import { runBenchmarks, SCENARIOS } from '../src/run-bench.ts';

describe('benchmark smoke run (tiny sizes; figures mean nothing, completion does)', () => {
  test('every system runs every scenario and the report is written', async () => {
    const run = await runBenchmarks({ n: 200, reps: 1, latencyJobs: 100 });
    const systems = ['@jobs', 'BullMQ', 'bee-queue', 'Redis lists'];
    for (const scenario of SCENARIOS) {
      for (const system of systems) {
        const [measurement] = run.results[scenario.id]?.[system] ?? [];
        expect(measurement, `${scenario.id} ${system}`).toBeDefined();
        const value = scenario.id === 'latency' ? measurement?.doneP50 : measurement?.rate;
        expect(Number.isFinite(value) && (value as number) > 0, `${scenario.id} ${system}`).toBe(true);
        // Every job costs this process and the server some CPU: zero would mean it was not read.
        expect(measurement?.nodeCpuUs, `${scenario.id} ${system} node CPU`).toBeGreaterThan(0);
        expect(measurement?.redisCpuUs, `${scenario.id} ${system} redis CPU`).toBeGreaterThan(0);
      }
    }
    const report = markdownReport(run, 'benchmarks.svg');
    expect(report).toContain('| process pre-enqueued, concurrency 64 |');
    expect(report).toMatch(/\| latency at 1000 jobs\/s, concurrency 64 \| \d+\.\d \+ \d+\.\d \|/);
    expect(targets(run)).toHaveLength(10);
    const svg = svgChart(run);
    expect(svg).toMatch(/^<svg [^>]+>/);
    mkdirSync(new URL('../test-results/', import.meta.url), { recursive: true });
    writeFileSync(new URL('../test-results/BENCHMARKS.smoke.md', import.meta.url), report);
    writeFileSync(new URL('../test-results/benchmarks.smoke.svg', import.meta.url), svg);
  });
});
