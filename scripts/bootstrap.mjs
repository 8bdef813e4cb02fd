#!/usr/bin/env node
// The README's two commands land here: `npm run demo` and `npm test`.
// On a fresh Debian machine with only Node 20 and npm, this script installs what the repo needs
// (pnpm at the version pinned in package.json, dependencies from the frozen lockfile, and
// redis-server when no REDIS_URL is given), then runs the demo or every check and test: the
// tests once against one redis-server (core's suite a second time with every script sent through
// EVALSHA, the fallback for servers and users without functions) and once more against a Redis
// Cluster (`npm run test:cluster` runs only that last pass).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const [command, ...rest] = process.argv.slice(2);

function log(message) {
  process.stderr.write(`[jobs] ${message}\n`);
}

function fail(message) {
  log(message);
  process.exit(1);
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.error) fail(`could not run ${cmd}: ${result.error.message}`);
  if (result.status !== 0) fail(`${cmd} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
}

function output(cmd, args) {
  const result = spawnSync(cmd, args, { cwd: root, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** pnpm at exactly the version in package.json's packageManager, installed under .tools/ if needed. */
function ensurePnpm() {
  const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];
  if (output('pnpm', ['--version']) === pinned) return 'pnpm';
  const local = join(root, '.tools', 'node_modules', '.bin', 'pnpm');
  if (!existsSync(local) || output(local, ['--version']) !== pinned) {
    log(`installing pnpm ${pinned} into .tools/`);
    run('npm', ['install', '--prefix', join(root, '.tools'), '--no-audit', '--no-fund', '--loglevel=error', `pnpm@${pinned}`]);
  }
  return local;
}

/**
 * redis-server (and redis-cli, in the same Debian package's dependencies) on PATH, installed
 * with apt-get when we are root; otherwise say how. Not needed when every pass has a Redis of
 * its own: REDIS_URL for the demo and the single-server pass, REDIS_CLUSTER_URL for the cluster pass.
 */
function ensureRedisServer() {
  const single = command !== 'test:cluster';
  const cluster = command === 'test' || command === 'test:cluster';
  if ((!single || process.env.REDIS_URL) && (!cluster || process.env.REDIS_CLUSTER_URL)) return;
  if (output('redis-server', ['--version'])) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && output('apt-get', ['--version'])) {
    log('redis-server is missing: installing the Debian package');
    run('apt-get', ['update', '-qq']);
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'redis-server'], {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    return;
  }
  fail(
    'redis-server is not installed. Install it (Debian/Ubuntu: `sudo apt-get install redis-server`), ' +
      'or point REDIS_URL at a Redis 7 server you already run (and, for the cluster pass, REDIS_CLUSTER_URL at a redis+cluster:// Redis 7 cluster).',
  );
}

/** The JSON report of each test pass, in every package's test-results/. */
const REPORTS = { 'single server': 'vitest.json', 'scripts through EVALSHA': 'vitest-eval.json', 'Redis Cluster': 'vitest-cluster.json' };

/**
 * Sums the JSON reports that each package's vitest runs wrote (`passes`: keys of REPORTS),
 * prints a line per pass, and one closing line for them all.
 */
function summarizeTests(passes) {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const lines = [];
  for (const pass of passes) {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const group of ['packages', 'apps', 'tools']) {
      const groupDir = join(root, group);
      if (!existsSync(groupDir)) continue;
      for (const name of readdirSync(groupDir)) {
        const report = join(groupDir, name, 'test-results', REPORTS[pass]);
        if (!existsSync(report)) continue;
        const data = JSON.parse(readFileSync(report, 'utf8'));
        counts.passed += data.numPassedTests ?? 0;
        counts.failed += data.numFailedTests ?? 0;
        counts.skipped += (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0);
      }
    }
    lines.push(`${pass}: ${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''}\n`);
    passed += counts.passed;
    failed += counts.failed;
    skipped += counts.skipped;
  }
  // Summary lines some suites of the single-server pass write (the chaos run's), shown before
  // the closing count; a cluster pass alone would show an earlier run's.
  for (const group of passes.includes('single server') ? ['packages', 'apps', 'tools'] : []) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const name of readdirSync(groupDir)) {
      const resultsDir = join(groupDir, name, 'test-results');
      if (!existsSync(resultsDir)) continue;
      for (const file of readdirSync(resultsDir).filter((f) => f.endsWith('-summary.txt'))) {
        process.stdout.write(readFileSync(join(resultsDir, file), 'utf8'));
      }
    }
  }
  if (passes.length > 1) process.stdout.write(`\n${lines.join('')}`);
  process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  return { passed, failed };
}

/** Removes what earlier runs left in test-results/: all of it, or (`file`) one report. */
function clearTestReports(file) {
  for (const group of ['packages', 'apps', 'tools']) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const name of readdirSync(groupDir)) {
      const dir = join(groupDir, name, 'test-results');
      rmSync(file === undefined ? dir : join(dir, file), { recursive: true, force: true });
    }
  }
}

/** `turbo run <tasks>`, going on past failures so that every report is written; its exit status. */
function turbo(pnpm, tasks, extra) {
  const result = spawnSync(pnpm, ['exec', 'turbo', 'run', ...tasks, '--continue', '--output-logs=errors-only', ...extra], { cwd: root, stdio: 'inherit' });
  if (result.error) fail(`could not run turbo: ${result.error.message}`);
  return result.status ?? 1;
}

function main() {
  if (!['demo', 'test', 'test:cluster', 'chaos', 'failover', 'bench', 'bench:cluster'].includes(command)) {
    fail('usage: node scripts/bootstrap.mjs demo|test|test:cluster|chaos|failover|bench|bench:cluster [args...]');
  }
  const pnpm = ensurePnpm();
  // turbo (and package scripts) find pnpm on PATH: put the pinned one first.
  if (pnpm !== 'pnpm') process.env.PATH = `${dirname(pnpm)}:${process.env.PATH ?? ''}`;
  run(pnpm, ['install', '--frozen-lockfile', '--prefer-offline', '--reporter=append-only']);
  ensureRedisServer();

  if (command === 'test' || command === 'test:cluster') {
    let status = 0;
    if (command === 'test') {
      clearTestReports();
      // test:eval (core's suite again, every script through EVALSHA) runs after each package's test.
      status = turbo(pnpm, ['lint', 'typecheck', 'build', 'test', 'test:eval'], rest);
      // The cluster pass comes after, not alongside: six more redis-servers per package, and
      // the chaos run's timing, on a two-core machine would make both passes flaky.
      log('the same suites again, against a Redis Cluster');
    } else {
      clearTestReports(REPORTS['Redis Cluster']);
    }
    // Run even after a failure above, so that both passes' reports are there to read.
    const clusterStatus = turbo(pnpm, ['test:cluster'], rest);
    status ||= clusterStatus;
    const { passed, failed } = summarizeTests(command === 'test' ? Object.keys(REPORTS) : ['Redis Cluster']);
    if (status !== 0 || failed > 0) process.exit(status || 1);
    if (passed === 0) fail('no test ran');
    return;
  }

  // The tools' CLIs: build the tool and what it needs, then run its built entry point.
  //   npm run bench -- [--n 10000] [--reps 3]       writes docs/BENCHMARKS.md and its chart
  //   npm run bench:cluster -- [--n 20000] [--partitions 6] [--reps 3] [--pin] [--no-events]   plain vs partitioned on a local cluster
  //   npm run test:chaos -- --seconds 600 [--partitions 3]   a longer chaos run than the one in npm test
  //   npm run test:failover -- --seconds 120        the failover run in both modes, longer than in npm test
  const tools = {
    bench: ['bench', 'cli.js', rest.includes('--out') ? rest : [...rest, '--out', join(root, 'docs', 'BENCHMARKS.md')]],
    'bench:cluster': ['bench', 'cluster-cli.js', rest],
    chaos: ['chaos', 'cli.js', rest],
    failover: ['chaos', 'failover-cli.js', rest],
  };
  if (command in tools) {
    const [tool, entry, args] = tools[command];
    run(pnpm, ['exec', 'turbo', 'run', 'build', `--filter=@jobs/${tool}...`, '--output-logs=errors-only']);
    run(process.execPath, [join(root, 'tools', tool, 'dist', entry), ...args]);
    return;
  }

  run(pnpm, ['exec', 'turbo', 'run', 'build', '--filter=@jobs/demo...', '--output-logs=errors-only']);
  const child = spawn(process.execPath, [join(root, 'apps', 'demo', 'dist', 'main.js'), ...rest], {
    cwd: root,
    stdio: 'inherit',
  });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

main();
