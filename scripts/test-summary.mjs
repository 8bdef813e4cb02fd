// Sums the JSON reports that each package's vitest writes into the per-pass and closing lines of
// `npm test`. A suite that failed outside its tests (a file that did not load, a failed
// beforeAll whose tests vitest then reports as skipped) counts as a failure, and so does a
// package whose test task ran but left no report.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Each test pass: its report in every package's test-results/, and the turbo task that writes it. */
export const PASSES = {
  'single server': { report: 'vitest.json', task: 'test' },
  'scripts through EVALSHA': { report: 'vitest-eval.json', task: 'test:eval' },
  'Redis Cluster': { report: 'vitest-cluster.json', task: 'test:cluster' },
};

/** The folders that hold packages, relative to the repo root. */
export const PACKAGE_GROUPS = ['packages', 'apps', 'tools'];

/** The first line of a message, for a one-line account of a failure. */
function firstLine(text) {
  return String(text ?? '').split('\n').find((line) => line.trim() !== '')?.trim() ?? '';
}

/** `file` relative to `root` when it is inside it (reports name files by absolute path). */
function shown(root, file) {
  const path = relative(root, file);
  return path.startsWith('..') || path.startsWith(sep) ? file : path;
}

/**
 * The counts of one vitest JSON report: its tests, plus one failure for each file that failed
 * with no failed test in it (vitest counts such a file's tests as skipped, or has none), and one
 * when the report says the run failed yet names no failure.
 */
export function countReport(root, data) {
  const counts = {
    passed: data.numPassedTests ?? 0,
    failed: data.numFailedTests ?? 0,
    skipped: (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0),
    problems: [],
  };
  for (const file of data.testResults ?? []) {
    if (file.status !== 'failed') continue;
    if ((file.assertionResults ?? []).some((test) => test.status === 'failed')) continue;
    counts.failed += 1;
    const why = firstLine(file.message) || 'failed outside its tests (in a hook, or its tests were reported as skipped)';
    counts.problems.push(`${shown(root, file.name ?? '(unnamed file)')}: ${why}`);
  }
  if (counts.failed === 0 && (data.success === false || (data.numFailedTestSuites ?? 0) > 0)) {
    counts.failed += 1;
    counts.problems.push('vitest reported the run as failed, with no failed test or file named');
  }
  return counts;
}

/** The package folders (relative to `root`) that have a `test-results/` folder or a package.json. */
function packageDirs(root) {
  const dirs = [];
  for (const group of PACKAGE_GROUPS) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const name of readdirSync(groupDir).sort()) dirs.push(join(group, name));
  }
  return dirs;
}

/**
 * Counts every pass in `passes` (keys of PASSES). `ran[pass]`, when given, lists the package
 * folders (relative to `root`) whose task for that pass ran: a folder among them without a report
 * counts as one failure. Without it, the reports found are all there is to count.
 */
export function countPasses(root, passes, ran = {}) {
  const result = { passes: [], passed: 0, failed: 0, skipped: 0 };
  for (const pass of passes) {
    const { report } = PASSES[pass];
    const counts = { pass, passed: 0, failed: 0, skipped: 0, problems: [] };
    const expected = new Set(ran[pass] ?? []);
    for (const dir of [...new Set([...packageDirs(root), ...expected])]) {
      const file = join(root, dir, 'test-results', report);
      if (!existsSync(file)) {
        if (expected.has(dir)) {
          counts.failed += 1;
          counts.problems.push(`${dir}: its ${PASSES[pass].task} task ran but wrote no ${report} (the run crashed, or vitest could not start)`);
        }
        continue;
      }
      let data;
      try {
        data = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        counts.failed += 1;
        counts.problems.push(`${dir}: test-results/${report} is not a readable report (${firstLine(error.message)})`);
        continue;
      }
      const found = countReport(root, data);
      counts.passed += found.passed;
      counts.failed += found.failed;
      counts.skipped += found.skipped;
      counts.problems.push(...found.problems);
    }
    result.passes.push(counts);
    result.passed += counts.passed;
    result.failed += counts.failed;
    result.skipped += counts.skipped;
  }
  return result;
}

/** "N passed, N failed[, N skipped]". */
function tally({ passed, failed, skipped }) {
  return `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
}

/**
 * The text `npm test` ends with: the failures found outside tests (vitest's own output names
 * failed tests), a line per pass when there are several, and the closing count.
 */
export function formatSummary(result) {
  let text = '';
  const problems = result.passes.flatMap((counts) => counts.problems.map((problem) => `  ${counts.pass}: ${problem}\n`));
  if (problems.length > 0) text += `\nSuites that failed outside their tests, or left no report:\n${problems.join('')}`;
  if (result.passes.length > 1) text += `\n${result.passes.map((counts) => `${counts.pass}: ${tally(counts)}\n`).join('')}`;
  return `${text}\n${tally(result)}\n`;
}
