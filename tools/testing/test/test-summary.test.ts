import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { countPasses, countReport, formatSummary } from '../../../scripts/test-summary.mjs';

/** vitest's JSON report of a run where one file did not load and one failed in beforeAll (its two tests then show as skipped). */
const failedSuites: unknown = JSON.parse(readFileSync(new URL('./fixtures/vitest-failed-suites.json', import.meta.url), 'utf8'));
/** vitest's JSON report of one passing test and one skipped. */
const passedRun: unknown = JSON.parse(readFileSync(new URL('./fixtures/vitest-passed.json', import.meta.url), 'utf8'));

const roots: string[] = [];

/** A scratch repo root with `reports` written as `<dir>/test-results/<file>`. */
function repoWith(reports: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), 'jobs-test-summary-'));
  roots.push(root);
  for (const [path, report] of Object.entries(reports)) {
    const file = join(root, path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, typeof report === 'string' ? report : JSON.stringify(report));
  }
  return root;
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('the test summary of npm test', () => {
  test('a file that did not load and a file whose beforeAll failed each count as a failure, though vitest counts no failed test', () => {
    const counts = countReport('/repo', failedSuites);
    expect(counts).toMatchObject({ passed: 1, failed: 2, skipped: 3 });
    expect(counts.problems).toEqual([
      "apps/demo/test/broken.test.ts: Cannot find module './nowhere.ts' imported from /repo/apps/demo/test/broken.test.ts",
      expect.stringMatching(/^apps\/demo\/test\/e2e\.test\.ts: failed outside its tests/),
    ]);
  });

  test('a failed test counts once, not again for its file', () => {
    const report = {
      numPassedTests: 1,
      numFailedTests: 1,
      numFailedTestSuites: 2,
      success: false,
      testResults: [{ name: '/repo/packages/core/test/a.test.ts', status: 'failed', message: '', assertionResults: [{ status: 'passed' }, { status: 'failed' }] }],
    };
    expect(countReport('/repo', report)).toEqual({ passed: 1, failed: 1, skipped: 0, problems: [] });
  });

  test("the closing line and the pass's line count the failed suites; a clean report adds none", () => {
    const root = repoWith({ 'apps/demo/test-results/vitest.json': failedSuites, 'packages/core/test-results/vitest.json': passedRun });
    const summary = countPasses(root, ['single server', 'Redis Cluster']);
    expect(summary).toMatchObject({ passed: 2, failed: 2, skipped: 4 });
    const text = formatSummary(summary);
    expect(text).toMatch(/^single server: 2 passed, 2 failed, 4 skipped$/m);
    expect(text).toMatch(/^Redis Cluster: 0 passed, 0 failed$/m);
    expect(text.trimEnd().split('\n').at(-1)).toBe('2 passed, 2 failed, 4 skipped');
  });

  test('a package whose test task ran but left no report, or an unreadable one, counts as failed', () => {
    const root = repoWith({ 'packages/core/test-results/vitest.json': passedRun, 'packages/worker/test-results/vitest-cluster.json': '{"numPassedTests": 3,' });
    mkdirSync(join(root, 'packages', 'producer'));
    const summary = countPasses(root, ['single server', 'Redis Cluster'], { 'single server': ['packages/core', 'packages/producer'], 'Redis Cluster': ['packages/worker'] });
    expect(summary.passes.map(({ pass, failed }) => [pass, failed])).toEqual([
      ['single server', 1],
      ['Redis Cluster', 1],
    ]);
    expect(summary.passes.flatMap((counts) => counts.problems)).toEqual([
      'packages/producer: its test task ran but wrote no vitest.json (the run crashed, or vitest could not start)',
      expect.stringMatching(/^packages\/worker: test-results\/vitest-cluster\.json is not a readable report/),
    ]);
    expect(formatSummary(summary).trimEnd().split('\n').at(-1)).toBe('1 passed, 2 failed, 1 skipped');
  });
});
