#!/usr/bin/env node
/**
 * Profiles the timed part of one benchmark scenario of @jobs: a CPU profile of this process
 * (`node:inspector`, from the timed part's start to its end only), flame graphs of it, and what
 * Redis ran (`INFO commandstats`, reset at the start), per job.
 *
 *   npm run bench:profile -- [--scenario process-64|process-16|enqueue-64|bulk] [--n 60000] [--out DIR] [--redis-perf]
 *
 * `--redis-perf` also samples redis-server with `perf record` (Linux, linux-perf, root or a low
 * `kernel.perf_event_paranoid`) over the same part: its flame graph and time per job by function.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startRedisServer } from '@jobs/dev-redis';
import { Redis } from 'ioredis';
import { jobsAdapter } from '../adapters/jobs.ts';
import { CpuMeter } from '../cpu-meter.ts';
import { enqueueBulk, enqueueConcurrent, processPreEnqueued, type Measurement } from '../scenarios.ts';
import { commandStatsTable, parseCommandStats } from './commandstats.ts';
import { flameSvg } from './flame-svg.ts';
import { busyTree, foldProfile, type CpuProfile } from './fold.ts';
import { foldPerfScript } from './perf-fold.ts';
import { recordPerf, type PerfRecording } from './perf-record.ts';
import { redisProfileSection } from './redis-profile.ts';
import { scriptArgs } from '../script-args.ts';

const SCENARIOS = {
  'process-64': (a, n, m) => processPreEnqueued(a, n, 64, m),
  'process-16': (a, n, m) => processPreEnqueued(a, n, 16, m),
  'enqueue-64': (a, n, m) => enqueueConcurrent(a, n, 64, m),
  bulk: (a, n, m) => enqueueBulk(a, n, 1_000, m),
} satisfies Record<string, (adapter: Awaited<ReturnType<typeof jobsAdapter>>, n: number, meter: CpuMeter) => Promise<Measurement>>;

const { values } = parseArgs({ args: scriptArgs(), options: { scenario: { type: 'string', default: 'process-64' }, n: { type: 'string', default: '60000' }, out: { type: 'string' }, 'redis-perf': { type: 'boolean', default: false } } });
const scenario = values.scenario as keyof typeof SCENARIOS;
const n = Number(values.n);
if (!(scenario in SCENARIOS) || !Number.isInteger(n) || n < 1) {
  process.stderr.write(`usage: npm run bench:profile -- [--scenario ${Object.keys(SCENARIOS).join('|')}] [--n 60000] [--out DIR] [--redis-perf]\n`);
  process.exit(2);
}
const out = values.out ?? join(process.cwd(), 'bench-results', `profile-${scenario}`);
mkdirSync(out, { recursive: true });

const server = await startRedisServer({ name: 'profile' });
const admin = new Redis(server.url);
const session = new Session();
session.connect();
const adapter = await jobsAdapter(server.url, 'profile');
let measurement: Measurement;
let profile: CpuProfile;
let recording: PerfRecording | undefined;
let perfText: string | undefined;
try {
  // The meter's start and stop bound the timed part; the profile and the command counts take the same bounds.
  const meter = new CpuMeter([admin]);
  const start = meter.start.bind(meter);
  const stop = meter.stop.bind(meter);
  meter.start = async () => {
    await admin.config('RESETSTAT');
    if (values['redis-perf']) recording = await recordPerf(server.pid, join(out, 'redis.perf.data'));
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    await start();
  };
  meter.stop = async (jobs) => {
    const cpu = await stop(jobs);
    profile = (await session.post('Profiler.stop')).profile as unknown as CpuProfile;
    perfText = await recording?.stop();
    return cpu;
  };
  measurement = await SCENARIOS[scenario](adapter, n, meter);
} finally {
  await adapter.close();
}
const stats = parseCommandStats(await admin.info('commandstats'));
admin.disconnect();
await server.stop();
session.disconnect();

const folded = foldProfile(profile!);
const perf = perfText === undefined ? undefined : foldPerfScript(perfText);
const ms = (us: number): string => (us / 1000).toFixed(1);
const share = (us: number): string => `${((us / folded.busyUs) * 100).toFixed(1)}%`;
writeFileSync(join(out, 'worker.cpuprofile'), JSON.stringify(profile!));
writeFileSync(join(out, 'flame.svg'), flameSvg(folded.root, `@jobs ${scenario}, ${n} jobs: this process over the timed part`));
writeFileSync(join(out, 'flame-busy.svg'), flameSvg(busyTree(folded.root), `@jobs ${scenario}, ${n} jobs: busy time only`));
const summary = [
  `# @jobs ${scenario}, ${n.toLocaleString('en-US')} jobs`,
  '',
  `${Math.round(measurement.rate ?? 0).toLocaleString('en-US')} jobs/s; CPU per job: this process ${measurement.nodeCpuUs?.toFixed(1)} µs, Redis ${measurement.redisCpuUs?.toFixed(1)} µs. Sampled: ${ms(folded.busyUs)} ms busy, ${ms(folded.idleUs)} ms idle (main thread).`,
  '',
  '## Self time by package',
  '',
  '| group | ms | share of busy |',
  '|---|---:|---:|',
  ...folded.groups.map(({ group, selfUs }) => `| ${group} | ${ms(selfUs)} | ${share(selfUs)} |`),
  '',
  '## Top 30 functions by self time',
  '',
  '| function | where | ms | share of busy |',
  '|---|---|---:|---:|',
  ...folded.functions.slice(0, 30).map(({ frame, selfUs }) => `| ${frame.name.replaceAll('|', '\\|')} | ${frame.url ? `${frame.url.split('/').slice(-2).join('/')}:${frame.line}` : 'native'} | ${ms(selfUs)} | ${share(selfUs)} |`),
  '',
  '## Redis: INFO commandstats over the timed part',
  '',
  commandStatsTable(stats, n),
  '',
  ...(perf === undefined ? [] : redisProfileSection(perf, n)),
].join('\n');
if (perf !== undefined) writeFileSync(join(out, 'redis-flame.svg'), flameSvg(perf.root, `redis-server during @jobs ${scenario}, ${n} jobs (perf, DWARF call graphs)`));
writeFileSync(join(out, 'summary.md'), summary);
process.stdout.write(`${summary}\nwrote ${out}\n`);
