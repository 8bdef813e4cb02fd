/**
 * What tracing costs per job: `--jobs N` jobs (default 5,000) enqueued one call each (100 in
 * flight) by a producer and run by a worker (concurrency 16) in this process, on a private
 * redis-server; rounds alternate tracing off and on (producer and worker `tracing`, spans to an
 * exporter that drops them behind the SDK's BatchSpanProcessor, so span making is counted and
 * exporting is not). The first pair of rounds warms up and is not counted. Per round: this process's CPU per job and Redis's script time per job
 * (INFO commandstats, fcall). Run: `pnpm --filter @jobs/bench run bench:tracing-cost`.
 */
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { startRedisServer } from '@jobs/dev-redis';
import { createProducer, defineKinds } from '@jobs/producer';
import { createWorker } from '@jobs/worker';
import { Redis } from 'ioredis';

const kinds = defineKinds({ task: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } } });
const jobsArg = process.argv.indexOf('--jobs');
const jobs = jobsArg > 0 ? Number(process.argv[jobsArg + 1]) : 5_000;
/** Rounds after the first pair, which warms up the JIT and is not counted. */
const ROUNDS = 6;

let exported = 0;
const dropping: SpanExporter = {
  export(spans: ReadableSpan[], done) {
    exported += spans.length;
    done({ code: 0 });
  },
  shutdown: () => Promise.resolve(),
};
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropping, { maxQueueSize: 100_000, maxExportBatchSize: 4_096 })] });

/** Total µs Redis spent in scripts since the last reset. */
function scriptUsec(info: string): number {
  const line = info.split('\n').find((l) => l.startsWith('cmdstat_fcall:'));
  return Number(/usec=(\d+)/.exec(line ?? '')?.[1] ?? 0);
}

async function round(url: string, admin: Redis, index: number, traced: boolean): Promise<{ cpuUs: number; redisUs: number; ms: number }> {
  const queue = `tracing-cost-${process.pid}-${index}`;
  const tracing = traced ? { tracerProvider } : false;
  const producer = createProducer({ redis: url, queue, kinds, tracing });
  let done = 0;
  let finished: () => void = () => undefined;
  const all = new Promise<void>((resolve) => {
    finished = resolve;
  });
  await admin.config('RESETSTAT');
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let first = 0; first < jobs; first += 100) {
    await Promise.all(Array.from({ length: Math.min(100, jobs - first) }, (_, i) => producer.enqueue('task', { n: first + i })));
  }
  const worker = createWorker({
    redis: url,
    queue,
    kinds,
    concurrency: 16,
    tracing,
    completedHistory: 0,
    handlers: {
      task: () => {
        done += 1;
        if (done === jobs) finished();
      },
    },
  });
  await all;
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const redisUs = scriptUsec(await admin.info('commandstats'));
  await worker.close();
  await producer.close();
  return { cpuUs: (used.user + used.system) / jobs, redisUs: redisUs / jobs, ms };
}

const server = await startRedisServer({ name: 'bench-tracing-cost' });
const admin = new Redis(server.url);
const results: { traced: boolean; cpuUs: number; redisUs: number; ms: number }[] = [];
for (let i = 0; i < ROUNDS + 2; i += 1) {
  const traced = i % 2 === 1;
  const result = await round(server.url, admin, i, traced);
  if (i >= 2) results.push({ traced, ...result });
}
await tracerProvider.forceFlush();
admin.disconnect();
await server.stop();
for (const r of results) {
  process.stdout.write(`tracing ${r.traced ? 'on ' : 'off'}: ${r.cpuUs.toFixed(1)} µs CPU per job (this process), ${r.redisUs.toFixed(1)} µs Redis script time per job, ${((jobs / r.ms) * 1_000).toFixed(0)} jobs/s\n`);
}
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
for (const traced of [false, true]) {
  const rs = results.filter((r) => r.traced === traced);
  process.stdout.write(`median, tracing ${traced ? 'on ' : 'off'}: ${median(rs.map((r) => r.cpuUs)).toFixed(1)} µs CPU, ${median(rs.map((r) => r.redisUs)).toFixed(1)} µs Redis per job\n`);
}
process.stdout.write(`${exported} spans made with tracing on (${(exported / (jobs * (ROUNDS / 2 + 1))).toFixed(2)} per job)\n`);
