/**
 * The same measurement as flow-throughput.ts with BullMQ 6.7's FlowProducer, for a comparison in
 * one sitting: `--flows N` flows of a parent and 10 children, added 32 at a time while one worker
 * at concurrency 16 runs them. The last child's completion is its `finishedOn`, the parent's
 * start the time its processor is called (both this machine's clock).
 * Run: `pnpm --filter @jobs/bench run bench:flows:bullmq`.
 */
import { startRedisServer } from '@jobs/dev-redis';
import { FlowProducer, Worker, type Job } from 'bullmq';

const flowsArg = process.argv.indexOf('--flows');
const flows = flowsArg > 0 ? Number(process.argv[flowsArg + 1]) : 2_000;

const server = await startRedisServer({ name: 'bench-flows-bullmq' });
const url = new URL(server.url);
const connection = { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null };
const queueName = `flows-${process.pid}`;
const started = new Map<string, number>();
const lastChild = new Map<string, number>();
let done: () => void = () => undefined;
const finished = new Promise<void>((resolve) => {
  done = resolve;
});
let parentsDone = 0;
const worker = new Worker(
  queueName,
  async (job: Job) => {
    if (job.name === 'part') return (job.data as { n: number }).n * 2;
    started.set(job.id as string, Date.now());
    const children = await job.getChildrenValues();
    return { parts: Object.keys(children).length };
  },
  { connection, concurrency: 16 },
);
worker.on('completed', (job: Job) => {
  if (job.name === 'part') {
    const parent = job.parent?.id as string;
    lastChild.set(parent, Math.max(lastChild.get(parent) ?? 0, job.finishedOn ?? 0));
  } else {
    parentsDone += 1;
    if (parentsDone === flows) setImmediate(done);
  }
});
await worker.waitUntilReady();
const producer = new FlowProducer({ connection });

const t0 = performance.now();
const ids: string[] = [];
for (let i = 0; i < flows; i += 32) {
  const batch = Array.from({ length: Math.min(32, flows - i) }, (_, j) =>
    producer.add({ name: 'whole', queueName, data: { n: i + j }, children: Array.from({ length: 10 }, (_, n) => ({ name: 'part', queueName, data: { n } })) }),
  );
  for (const node of await Promise.all(batch)) ids.push(node.job.id as string);
}
const enqueuedMs = performance.now() - t0;
await finished;
const totalMs = performance.now() - t0;
await worker.close();
await producer.close();
await server.stop();

const delays = ids.map((id) => (started.get(id) as number) - (lastChild.get(id) as number));
const sorted = [...delays].sort((a, b) => a - b);
const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
process.stdout.write(`BullMQ: ${flows} flows of 1 parent + 10 children, worker concurrency 16\n`);
process.stdout.write(`enqueued in ${enqueuedMs.toFixed(0)} ms (${((flows * 1000) / enqueuedMs).toFixed(0)} flows/s)\n`);
process.stdout.write(`all parents completed after ${totalMs.toFixed(0)} ms: ${((flows * 1000) / totalMs).toFixed(0)} flows/s (${((flows * 11000) / totalMs).toFixed(0)} jobs/s)\n`);
process.stdout.write(`last child completed -> parent started: median ${at(0.5)} ms, p99 ${at(0.99)} ms, worst ${sorted[sorted.length - 1]} ms\n`);
