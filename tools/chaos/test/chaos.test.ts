import { mkdirSync, writeFileSync } from 'node:fs';
import { isClusterRun } from '@jobs/testing';
import { describe, expect, test } from 'vitest';
import { runChaos, type ChaosOptions, type ChaosReport } from '../src/run-chaos.ts';

// About a minute in CI; longer runs: pnpm test:chaos -- --seconds 600
const SECONDS = Number(process.env.CHAOS_SECONDS ?? 40);

/** Runs the chaos, keeps its summary line (in test-results/ and the output), and returns its report. */
async function chaos(options: ChaosOptions, summaryFile: string): Promise<ChaosReport> {
  const report = await runChaos(options);
  mkdirSync(new URL('../test-results/', import.meta.url), { recursive: true });
  // The evidence of a failed run in full: the assertion's diff truncates long lines.
  const text = [report.summary, ...report.lost.map((line) => `lost: ${line}`), ...report.counterMismatches.map((line) => `mismatch: ${line}`)].join('\n');
  writeFileSync(new URL(`../test-results/${summaryFile}`, import.meta.url), `${text}\n`);
  process.stdout.write(`${text}\n`);
  return report;
}

/** Every fault happened, and every acknowledged job was completed or failed with a reason, once at a time. */
function expectNothingLost(report: ChaosReport): void {
  expect(report.jobs).toBeGreaterThan(100);
  expect(report.lost).toEqual([]);
  expect(report.leftover).toBe(0);
  expect(report.completed + report.failed).toBe(report.jobs);
  expect(report.fencingViolations).toEqual([]);
  expect(report.counterMismatches).toEqual([]);
  expect(report).toMatchObject({ redisRestarts: 2, connectionKills: 1, pauses: 1 });
  expect(report.workerKills).toBeGreaterThanOrEqual(5);
}

// The chaos run crashes, restarts and pauses a redis-server of its own, not the run's Redis: a
// cluster run would only repeat it (and its 40 s) as it is.
describe.skipIf(isClusterRun())('chaos', () => {
  test('under worker kills, Redis crashes, connection kills and a pause, no acknowledged job is lost, no concurrency cap is exceeded and every slot comes back', async () => {
    const report = await chaos({ seconds: SECONDS }, 'chaos-summary.txt');
    expectNothingLost(report);
    // The capped kind and the grouped kind (one at a time per group) ran, under the same faults.
    expect(report.summary).toContain('limited_jobs=');
    expect(report.checkedExecutions).toBeGreaterThan(100);
    expect(report.lostLimited).toBe(0);
    expect(report.capViolations).toEqual([]);
    expect(report.groupCapViolations).toEqual([]);
    expect(report.slotsHeld).toBe(0);
  });

  test('on a partitioned queue, under the same faults, no acknowledged job is lost', async () => {
    const report = await chaos({ seconds: Math.max(10, Math.round(SECONDS / 2)), partitions: 3 }, 'chaos-partitioned-summary.txt');
    expect(report.summary).toContain('partitions=3');
    expectNothingLost(report);
  });
});
