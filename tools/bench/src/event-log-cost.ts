/**
 * What the durable event log costs per job: the same work (N jobs enqueued by a producer, then
 * processed by a worker of concurrency 16) on one private redis-server with the log off and on,
 * interleaved, repeated. Reports Redis CPU per job (`INFO cpu`), the script calls and XADDs
 * (`INFO commandstats`), the wall time of the whole run, and the stream's memory.
 *
 * `pnpm --filter @jobs/bench run bench:event-log -- --jobs 20000 --reps 3`
 */
import { parseArgs } from 'node:util';
import { startRedisServer } from '@jobs/dev-redis';
import { createProducer, defineKinds } from '@jobs/producer';
import { createWorker } from '@jobs/worker';
import { Redis } from 'ioredis';
import { CpuMeter } from './cpu-meter.ts';
import { scriptArgs } from './script-args.ts';

const kinds = defineKinds({ echo: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } });

interface Sample {
  mode: 'off' | 'on';
  redisCpuUsPerJob: number;
  wallMs: number;
  xaddPerJob: number;
  streamBytes: number;
}

async function commandCalls(admin: Redis, command: string): Promise<number> {
  const info = await admin.info('commandstats');
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
}

async function runOnce(url: string, admin: Redis, mode: 'off' | 'on', jobs: number, rep: number): Promise<Sample> {
  const queue = `bench-log-${mode}-${rep}`;
  const eventLog = mode === 'on' ? { maxLen: 100_000 } : false;
  const producer = createProducer({ redis: url, queue, kinds, eventLog });
  const meter = new CpuMeter([admin]);
  const xaddBefore = await commandCalls(admin, 'xadd');
  await meter.start();
  const started = performance.now();
  const inFlight = new Set<Promise<unknown>>();
  for (let n = 0; n < jobs; n += 1) {
    const sent = producer.enqueue('echo', { n });
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
    if (inFlight.size >= 64) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  let done = 0;
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const worker = createWorker({
    redis: url,
    queue,
    kinds,
    eventLog,
    concurrency: 16,
    handlers: {
      echo: (payload) => {
        done += 1;
        if (done === jobs) setImmediate(finish);
        return payload.n;
      },
    },
  });
  await finished;
  await worker.close();
  const wallMs = performance.now() - started;
  const cpu = await meter.stop(jobs);
  const xadd = (await commandCalls(admin, 'xadd')) - xaddBefore;
  const streamBytes = mode === 'on' ? Number(await admin.memory('USAGE', `queue:{${queue}}:log`)) : 0;
  await producer.close();
  return { mode, redisCpuUsPerJob: cpu.redisCpuUs, wallMs, xaddPerJob: xadd / jobs, streamBytes };
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ args: scriptArgs(), options: { jobs: { type: 'string', default: '20000' }, reps: { type: 'string', default: '3' } } });
  const jobs = Number(values.jobs);
  const reps = Number(values.reps);
  const server = await startRedisServer({ name: 'bench-event-log' });
  const admin = new Redis(server.url);
  const samples: Sample[] = [];
  try {
    for (let rep = 0; rep < reps; rep += 1) {
      // Alternate who goes first, so neither always runs on a warm server.
      for (const mode of rep % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        const sample = await runOnce(server.url, admin, mode, jobs, rep);
        samples.push(sample);
        print(JSON.stringify(sample));
      }
    }
  } finally {
    admin.disconnect();
    await server.stop();
  }
  const summary = (mode: 'off' | 'on'): { cpu: number; wall: number } => {
    const mine = samples.filter((sample) => sample.mode === mode);
    return { cpu: median(mine.map((s) => s.redisCpuUsPerJob)), wall: median(mine.map((s) => s.wallMs)) };
  };
  const off = summary('off');
  const on = summary('on');
  print(`\n${jobs} jobs enqueued then processed (worker concurrency 16), median of ${reps}:`);
  print(`| event log | Redis CPU per job | wall time | jobs/s |`);
  print(`|---|---|---|---|`);
  for (const [name, s] of [['off', off], ['on (maxLen 100,000)', on]] as const) {
    print(`| ${name} | ${s.cpu.toFixed(1)} µs | ${(s.wall / 1000).toFixed(2)} s | ${Math.round(jobs / (s.wall / 1000))} |`);
  }
  print(`Redis CPU per job with the log on: ${((on.cpu / off.cpu - 1) * 100).toFixed(0)}% more.`);
}

await main();
