import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { runFailover, type FailoverReport } from '../src/run-failover.ts';

// Each run: a six-node cluster, 12 s of load with the failover in it, then the drain (about 15 s
// in all). Longer runs: pnpm test:failover -- --seconds 120
const SECONDS = Number(process.env.FAILOVER_SECONDS ?? 12);

/** Prints the run's line and keeps it for the closing summary of npm test. */
function keep(report: FailoverReport, name: string): void {
  mkdirSync(new URL('../test-results/', import.meta.url), { recursive: true });
  writeFileSync(new URL(`../test-results/${name}-summary.txt`, import.meta.url), `${report.summary}\n`);
  process.stdout.write(`${report.summary}\n`);
}

/** The failover happened: the queue's slot is served by the replica that took over, not by the killed master. */
function expectFailedOver(report: FailoverReport): void {
  expect(report.promotedPort).not.toBe(report.killedPort);
  expect(report.slotOwnerAfter).toBe(report.promotedPort);
  expect(report.failoverMs).toBeGreaterThan(0);
}

describe('failover', { timeout: 90_000 }, () => {
  test('in durable mode a master failover loses no acknowledged job', async () => {
    const report = await runFailover({ durable: true, seconds: SECONDS });
    keep(report, 'failover-durable');
    expectFailedOver(report);
    expect(report.acknowledged).toBeGreaterThan(100);
    // The queue took acknowledged writes again once the replica was master and had a replica.
    expect(report.acknowledgedAfterKill).toBeGreaterThan(0);
    expect(report.lost).toEqual([]);
    expect(report.leftover).toEqual([]);
    expect(report.completed + report.failed).toBe(report.acknowledged);
  });

  test('without durable mode the failover run reports its losses and duplicates', async () => {
    const report = await runFailover({ durable: false, seconds: SECONDS });
    keep(report, 'failover-default');
    expectFailedOver(report);
    expect(report.acknowledged).toBeGreaterThan(100);
    // Losses are what this run measures, and racy: every acknowledged job is accounted for and
    // the counts are printed, but no loss is required.
    expect(report.completed + report.failed + report.lost.length + report.leftover.length).toBe(report.acknowledged);
    expect(report.summary).toMatch(/ lost=\d+ .* duplicate_executions=\d+ /);
  });
});
