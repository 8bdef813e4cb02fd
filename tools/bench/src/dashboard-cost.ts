/**
 * What the dashboard costs on a deep queue: one private redis-server holds a small queue (1,000
 * jobs) and a deep one (`--jobs`, default 1,000,000), both of the same mix (pending, delayed, at a
 * priority, dead-lettered). A dashboard of each answers over loopback HTTP, as a browser would
 * ask it. Reports the Redis commands one overview poll runs (from `INFO commandstats`, commands
 * inside scripts included) and the time each list page takes to answer, for both depths.
 *
 * `pnpm --filter @jobs/bench run bench:dashboard -- --jobs 1000000 --reps 50`
 */
import { parseArgs } from 'node:util';
import { createDashboard, type DashboardServer } from '@jobs/dashboard';
import { findFreePort, startRedisServer } from '@jobs/dev-redis';
import { defineKinds, Queue } from '@jobs/core';
import { Redis } from 'ioredis';
import { scriptArgs } from './script-args.ts';

const kinds = defineKinds({
  email: { schema: { type: 'object', properties: { to: { type: 'string' }, n: { type: 'integer' } }, required: ['to', 'n'] } },
  invoice: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
});
type Payloads = { email: { to: string; n: number }; invoice: { n: number } };

const { values } = parseArgs({ args: scriptArgs(), options: { jobs: { type: 'string', default: '1000000' }, reps: { type: 'string', default: '50' } } });
const deepJobs = Number(values.jobs);
const reps = Number(values.reps);

/** The share of each depth that is delayed, at a priority, and dead-lettered (the rest is pending). */
const DELAYED_SHARE = 0.1;
const PRIORITIZED_SHARE = 0.05;
const FAILED_SHARE = 0.1;
const MAX_FAILED_JOBS = 1_000;

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Enqueues `count` jobs in batches of 1000, 8 batches in flight, then dead-letters a tenth of them (1,000 at most). */
async function fill(queue: Queue<Payloads>, count: number): Promise<void> {
  const batches: number[] = [];
  for (let first = 0; first < count; first += 1_000) batches.push(first);
  const send = async (first: number): Promise<void> => {
    const jobs = Array.from({ length: Math.min(1_000, count - first) }, (_, i) => {
      const n = first + i;
      const share = (n % 100) / 100;
      const options = share < DELAYED_SHARE ? { delayMs: 3_600_000 } : share < DELAYED_SHARE + PRIORITIZED_SHARE ? { priority: 5 } : undefined;
      return n % 2 === 0
        ? { kind: 'email' as const, payload: { to: `user${n}@example.com`, n }, ...(options && { options }) }
        : { kind: 'invoice' as const, payload: { n }, ...(options && { options }) };
    });
    await queue.enqueueMany(jobs);
  };
  for (let at = 0; at < batches.length; at += 8) await Promise.all(batches.slice(at, at + 8).map(send));
  const toFail = Math.min(MAX_FAILED_JOBS, Math.floor(count * FAILED_SHARE));
  let failed = 0;
  while (failed < toFail) {
    const claimed = await queue.claim({ max: Math.min(100, toFail - failed) });
    if (claimed.length === 0) break;
    for (const job of claimed) await queue.fail(job, new Error(`card declined for ${job.id}`), { permanent: true });
    failed += claimed.length;
  }
}

/** The calls of each command Redis has run so far, by `INFO commandstats` (INFO itself left out). */
async function commandCounts(admin: Redis): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const match of (await admin.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (match[1] !== 'info') counts.set(match[1] as string, Number(match[2]));
  }
  return counts;
}

/** What ran between two counts: `total` and `by` command, as `LLEN 5, FCALL 2...`. */
function commandsBetween(before: Map<string, number>, after: Map<string, number>): { total: number; by: string } {
  const ran = [...after].map(([name, calls]) => [name, calls - (before.get(name) ?? 0)] as const).filter(([, calls]) => calls > 0);
  ran.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return { total: ran.reduce((sum, [, calls]) => sum + calls, 0), by: ran.map(([name, calls]) => `${name.toUpperCase()} ${calls}`).join(', ') };
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** Median and p95 of `reps` GETs of `path`, in ms; throws when an answer is not a 200. */
async function timeGet(base: string, path: string): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let rep = 0; rep < reps; rep += 1) {
    const started = performance.now();
    const answer = await fetch(`${base}${path}`);
    await answer.arrayBuffer();
    times.push(performance.now() - started);
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}`);
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95) };
}

const server = await startRedisServer({ name: 'bench-dashboard' });
const admin = new Redis(server.url);
const depths = [1_000, deepJobs];
const dashboards: DashboardServer[] = [];
const queues: Queue<Payloads>[] = [];
const rows = new Map<string, string[]>();
const commandRow: string[] = [];
let pollBreakdown = '';
try {
  for (const depth of depths) {
    const queue = new Queue<Payloads>({ redis: server.url, queue: `dash-${depth}`, kinds });
    queues.push(queue);
    const filledAt = performance.now();
    await fill(queue, depth);
    print(`filled ${queue.name} with ${depth.toLocaleString('en')} jobs in ${((performance.now() - filledAt) / 1000).toFixed(1)} s`);
    const dashboard = createDashboard({ queues: [queue], sampleIntervalMs: 0 });
    const listening = await dashboard.listen({ port: await findFreePort(), host: '127.0.0.1' });
    dashboards.push(listening);
    const base = listening.url.replace(/\/$/, '');
    await (await fetch(`${base}/api/overview`)).arrayBuffer();
    const before = await commandCounts(admin);
    await (await fetch(`${base}/api/overview`)).arrayBuffer();
    const poll = commandsBetween(before, await commandCounts(admin));
    commandRow.push(String(poll.total));
    pollBreakdown = poll.by;
    const name = encodeURIComponent(queue.name);
    const pages: [string, string][] = [
      ['overview', '/api/overview'],
      ['pending, first page of 50', `/api/queues/${name}/jobs?state=pending&limit=50`],
      ['pending, page of 50 in the middle', `/api/queues/${name}/jobs?state=pending&limit=50&offset=${Math.floor(depth * 0.4)}`],
      ['waiting (start order), first page', `/api/queues/${name}/jobs?state=waiting&limit=50`],
      ['waiting, page of 50 in the middle', `/api/queues/${name}/jobs?state=waiting&limit=50&offset=${Math.floor(depth * 0.4)}`],
      ['delayed, first page', `/api/queues/${name}/jobs?state=delayed&limit=50`],
      ['failed, first page', `/api/queues/${name}/jobs?state=failed&limit=50`],
      ['pending filtered by kind (1,000 ids scanned)', `/api/queues/${name}/jobs?state=pending&limit=50&kind=email`],
      ['one failed job', `/api/queues/${name}/jobs/${encodeURIComponent((await queue.list('failed', { limit: 1 }))[0]?.id ?? '')}`],
    ];
    for (const [label, path] of pages) {
      const { p50, p95 } = await timeGet(base, path);
      rows.set(label, [...(rows.get(label) ?? []), `${p50.toFixed(2)} / ${p95.toFixed(2)}`]);
    }
  }
  print('');
  print(`| answer (ms, p50 / p95 of ${reps}) | ${depths.map((depth) => `${depth.toLocaleString('en')} jobs`).join(' | ')} |`);
  print(`|---|${depths.map(() => '---:').join('|')}|`);
  print(`| Redis commands per overview poll | ${commandRow.join(' | ')} |`);
  for (const [label, cells] of rows) print(`| ${label} | ${cells.join(' | ')} |`);
  print('');
  print(`One overview poll of the deepest queue ran: ${pollBreakdown}`);
  print(`Redis memory: ${(await admin.info('memory')).match(/used_memory_human:(\S+)/)?.[1] ?? '?'}`);
} finally {
  for (const listening of dashboards) await listening.close();
  for (const queue of queues) await queue.close();
  await admin.quit();
  await server.stop();
}
