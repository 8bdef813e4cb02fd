#!/usr/bin/env node
// The README's two commands land here: `npm run demo` and `npm test`.
// On a fresh Debian machine with only Node 20 and npm, this script first installs, in one
// apt-get step, the system packages the command needs (redis-server when no REDIS_URL is given;
// for the tests also chromium, and stress-ng for `npm run test:loaded`), then pnpm at the version
// pinned in package.json and the dependencies from the frozen lockfile, then runs the demo or
// every check and test: the tests once against one redis-server (core's suite a second time with
// every script sent through EVALSHA, the fallback for servers and users without functions) and
// once more against a Redis Cluster (`npm run test:cluster` runs only that last pass).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { countPasses, formatSummary, PACKAGE_GROUPS, PASSES } from './test-summary.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const [command, ...rest] = process.argv.slice(2);
/** Where Debian's chromium package puts the browser (tools/testing/src/chromium.ts looks there too). */
const CHROMIUM = '/usr/bin/chromium';

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

/** Whether this process may install system packages itself. */
function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Whether `bin` runs (`bin --version` exits 0). */
function runs(bin) {
  return output(bin, ['--version']) !== null;
}

/**
 * The Debian packages that `command` needs and that are missing: redis-server
 * (with redis-cli) unless every pass has a Redis of its own (REDIS_URL for the demo and the
 * single-server pass, REDIS_CLUSTER_URL for the cluster pass), chromium for the browser tests of
 * the demo and the dashboard, and stress-ng for the loaded run. `npm run demo` needs only the first.
 */
function missingSystemPackages(passes) {
  const single = command === 'test:loaded' ? passes.includes('single') : command !== 'test:cluster';
  const cluster = command === 'test:loaded' ? passes.includes('cluster') : command === 'test' || command === 'test:cluster';
  const tests = command === 'test' || command === 'test:cluster' || command === 'test:loaded';
  const missing = [];
  if ((single && !process.env.REDIS_URL) || (cluster && !process.env.REDIS_CLUSTER_URL)) {
    if (!runs(process.env.REDIS_SERVER_BIN ?? 'redis-server')) missing.push('redis-server');
    else if (!runs(process.env.REDIS_CLI_BIN ?? 'redis-cli')) missing.push('redis-tools');
  }
  if (tests && !existsSync(CHROMIUM)) missing.push('chromium');
  if (command === 'test:loaded' && !runs('stress-ng')) missing.push('stress-ng');
  return missing;
}

/**
 * Installs the system packages that `command` needs in one step, before any test starts: one
 * `apt-get update` and one `apt-get install` of all that is missing, when we are root on Debian;
 * otherwise it stops and says how to install them. No test installs anything.
 */
function ensureSystemPackages(passes) {
  const missing = missingSystemPackages(passes);
  if (missing.length === 0) return;
  const install = `apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (isRoot() && runs('apt-get')) {
    log(`installing the missing system packages: ${missing.join(', ')}`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    run('apt-get', ['update', '-qq'], { env });
    run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
    const still = missingSystemPackages(passes);
    if (still.length > 0) fail(`apt-get installed ${missing.join(' ')} but ${still.join(', ')} is still missing`);
    return;
  }
  const redisHint = missing.includes('redis-server')
    ? ' Instead of redis-server you can point REDIS_URL at a Redis 7 server you already run (and, for the cluster pass, REDIS_CLUSTER_URL at a redis+cluster:// Redis 7 cluster).'
    : '';
  fail(
    `missing system packages: ${missing.join(', ')}. Install them (Debian/Ubuntu: \`sudo ${install}\`) and run this again, ` +
      `or run it as root, which installs them itself.${redisHint}`,
  );
}

/**
 * The package folders (relative to the root) whose task for each pass turbo plans to run with
 * these arguments: a folder among them that leaves no report counts as a failure.
 */
function plannedTestTasks(pnpm, passes, extra) {
  const tasks = passes.map((pass) => PASSES[pass].task);
  const result = spawnSync(pnpm, ['exec', 'turbo', 'run', ...tasks, ...extra.filter((arg) => arg !== '--force'), '--dry=json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  let plan;
  try {
    plan = result.status === 0 ? JSON.parse(result.stdout) : {};
  } catch {
    plan = {};
  }
  const ran = {};
  for (const task of plan.tasks ?? []) {
    if (task.command === '<NONEXISTENT>') continue;
    const pass = passes.find((name) => PASSES[name].task === task.task);
    if (pass) (ran[pass] ??= []).push(task.directory);
  }
  return ran;
}

/**
 * Sums the JSON reports that each package's vitest runs wrote (`passes`: keys of PASSES):
 * prints a line per pass and one closing line for them all, where a suite that failed outside
 * its tests, or a package whose task ran but left no report, counts as a failure.
 */
function summarizeTests(pnpm, passes, extra) {
  // Summary lines some suites of the single-server pass write (the chaos run's), shown before
  // the closing count; a cluster pass alone would show an earlier run's.
  for (const group of passes.includes('single server') ? PACKAGE_GROUPS : []) {
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
  const result = countPasses(root, passes, plannedTestTasks(pnpm, passes, extra));
  process.stdout.write(formatSummary(result));
  return result;
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

/**
 * The test passes (`single`: the single-server pass and core's EVALSHA pass; `cluster`: the
 * Redis Cluster pass), each run by turbo with `extra` arguments (a `--filter`, say): clears the
 * reports they write, runs them, prints the summary, and says whether they passed.
 */
function runTests(pnpm, { single, cluster, checks }, extra) {
  let status = 0;
  const passes = [];
  if (single) {
    clearTestReports();
    // test:eval (core's suite again, every script through EVALSHA) runs after each package's test.
    status = turbo(pnpm, [...(checks ? ['lint', 'typecheck'] : []), 'build', 'test', 'test:eval'], extra);
    passes.push('single server', 'scripts through EVALSHA');
    // The cluster pass comes after, not alongside: six more redis-servers per package, and
    // the chaos run's timing, on a two-core machine would make both passes flaky.
    if (cluster) log('the same suites again, against a Redis Cluster');
  } else {
    clearTestReports(PASSES['Redis Cluster'].report);
  }
  if (cluster) {
    // Run even after a failure above, so that both passes' reports are there to read.
    const clusterStatus = turbo(pnpm, ['test:cluster'], extra);
    status ||= clusterStatus;
    passes.push('Redis Cluster');
  }
  const { passed, failed } = summarizeTests(pnpm, passes, extra);
  return { status: status || (failed > 0 ? 1 : 0), passed };
}

/**
 * `npm run test:loaded` arguments: `--times <n>` runs (default 1), `--cpu <n>` stress-ng CPU
 * workers (default 2), `--pass single|cluster` (repeatable; default both); the rest go to turbo.
 */
function loadedOptions(args) {
  const options = { times: 1, cpus: 2, passes: [], extra: [] };
  for (let i = 0; i < args.length; i += 1) {
    const [flag, inline] = args[i].split(/=(.*)/s);
    const value = () => inline ?? args[++i];
    if (flag === '--times' || flag === '--cpu') {
      const raw = value();
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1 || n > 100) fail(`${flag} must be a whole number from 1 to 100, not ${raw}`);
      options[flag === '--times' ? 'times' : 'cpus'] = n;
    } else if (flag === '--pass') {
      const pass = value();
      if (pass !== 'single' && pass !== 'cluster') fail(`--pass is single or cluster, not ${pass}`);
      if (!options.passes.includes(pass)) options.passes.push(pass);
    } else {
      options.extra.push(args[i]);
    }
  }
  if (options.passes.length === 0) options.passes = ['single', 'cluster'];
  return options;
}

/** Whether a stress-ng process runs in process group `pgid` (read from /proc). */
function hogRunning(pgid) {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = /^\d+ \((.*)\) (\S) \d+ (\d+) /.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (stat && stat[1].startsWith('stress-ng') && stat[2] !== 'Z' && Number(stat[3]) === pgid) return true;
    } catch {
      // The process ended while we looked.
    }
  }
  return false;
}

/**
 * Starts `stress-ng --cpu <cpus>` for as long as this process lives. A shell watches over it:
 * it stops stress-ng when this process exits, even when it is killed, so that no hog is left
 * behind on a shared machine.
 */
function startCpuHog(cpus) {
  const watch = 'stress-ng --cpu "$1" --quiet & hog=$!; trap \'kill "$hog" 2>/dev/null\' EXIT; trap \'exit 0\' TERM INT HUP; ' +
    'while kill -0 "$2" 2>/dev/null && kill -0 "$hog" 2>/dev/null; do sleep 1; done';
  const child = spawn('sh', ['-c', watch, 'cpu-hog', String(cpus), String(process.pid)], { stdio: 'ignore', detached: true });
  const stop = () => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  };
  process.on('exit', stop);
  // Not a reason to keep running: this process ends when its work does, and the hog with it.
  child.unref();
  // The hog needs a moment to start; a test run without it would prove nothing.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000);
  if (!hogRunning(child.pid)) fail(`stress-ng --cpu ${cpus} did not start`);
  log(`stress-ng --cpu ${cpus} is running; it stops when this run ends`);
}

function main() {
  const commands = ['demo', 'test', 'test:cluster', 'test:loaded', 'chaos', 'failover', 'bench', 'bench:cluster', 'bench:profile'];
  if (!commands.includes(command)) fail(`usage: node scripts/bootstrap.mjs ${commands.join('|')} [args...]`);
  const loaded = command === 'test:loaded' ? loadedOptions(rest) : undefined;
  // System packages first, in one step: nothing after this installs any.
  ensureSystemPackages(loaded?.passes ?? []);
  const pnpm = ensurePnpm();
  // turbo (and package scripts) find pnpm on PATH: put the pinned one first.
  if (pnpm !== 'pnpm') process.env.PATH = `${dirname(pnpm)}:${process.env.PATH ?? ''}`;
  run(pnpm, ['install', '--frozen-lockfile', '--prefer-offline', '--reporter=append-only']);

  if (command === 'test' || command === 'test:cluster') {
    const { status, passed } = runTests(pnpm, { single: command === 'test', cluster: true, checks: true }, rest);
    if (status !== 0) process.exit(status);
    if (passed === 0) fail('no test ran');
    return;
  }

  //   npm run test:loaded -- [--times 3] [--cpu 2] [--pass single|cluster] [--filter=@jobs/core]
  // The test passes under a CPU hog, again and again: --force keeps turbo from replaying a
  // cached result instead of running the tests.
  if (loaded) {
    const { times, cpus, passes, extra } = loaded;
    startCpuHog(cpus);
    for (let n = 1; n <= times; n += 1) {
      log(`loaded run ${n} of ${times}: ${passes.join(' and ')} pass${passes.length > 1 ? 'es' : ''} under stress-ng --cpu ${cpus}`);
      const { status, passed } = runTests(pnpm, { single: passes.includes('single'), cluster: passes.includes('cluster'), checks: false }, [...extra, '--force']);
      if (status !== 0 || passed === 0) fail(`loaded run ${n} of ${times} failed${passed === 0 ? ' (no test ran)' : ''}; its reports are in each package's test-results/`);
    }
    log(`${times} of ${times} loaded runs passed`);
    return;
  }

  // The tools' CLIs: build the tool and what it needs, then run its built entry point.
  //   npm run bench -- [--n 10000] [--reps 5]       writes docs/BENCHMARKS.md and its chart
  //   npm run bench:cluster -- [--n 20000] [--partitions 6] [--reps 3] [--pin] [--no-events]   plain vs partitioned on a local cluster
  //   npm run bench:profile -- [--scenario process-64] [--n 60000] [--out DIR]   CPU profile, flame graphs and commandstats of one scenario
  //   npm run test:chaos -- --seconds 600 [--partitions 3]   a longer chaos run than the one in npm test
  //   npm run test:failover -- --seconds 120        the failover run in both modes, longer than in npm test
  const tools = {
    bench: ['bench', 'cli.js', rest.includes('--out') ? rest : [...rest, '--out', join(root, 'docs', 'BENCHMARKS.md')]],
    'bench:cluster': ['bench', 'cluster-cli.js', rest],
    'bench:profile': ['bench', join('profile', 'cli.js'), rest],
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
