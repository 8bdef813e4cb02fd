/**
 * Flows per second and how soon a parent starts: `--flows N` flows (default 2000) of a parent
 * and 10 children, enqueued 32 at a time while one worker at concurrency 16 runs them, on a
 * private redis-server. Prints flows/s from the first enqueue to the last parent's completion,
 * and the ms from each flow's last child completion (its hash's completed_at_ms, Redis clock)
 * to its parent's handler start (this machine's clock: the same clock here), median, p99 and
 * worst. Run: `pnpm --filter @jobs/bench run build && pnpm --filter @jobs/bench run bench:flows`.
 */
import { startRedisServer } from '@jobs/dev-redis';
import { createProducer, defineKinds } from '@jobs/producer';
import { createWorker } from '@jobs/worker';

const kinds = defineKinds({
  part: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
  whole: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
});
const flowsArg = process.argv.indexOf('--flows');
const flows = flowsArg > 0 ? Number(process.argv[flowsArg + 1]) : 2_000;

const server = await startRedisServer({ name: 'bench-flows' });
const queue = `flows-${process.pid}`;
const options = { redis: server.url, queue, kinds, completedHistory: flows * 12 };
const producer = createProducer(options);
const started = new Map<string, number>();
let done: () => void = () => undefined;
const finished = new Promise<void>((resolve) => {
  done = resolve;
});
let parentsDone = 0;
const worker = createWorker({
  ...options,
  concurrency: 16,
  handlers: {
    part: (payload) => payload.n * 2,
    whole: async (payload, ctx) => {
      started.set(ctx.id, Date.now());
      const children = await ctx.children();
      parentsDone += 1;
      if (parentsDone === flows) setImmediate(done);
      return { n: payload.n, parts: Object.keys(children).length };
    },
  },
});

const t0 = performance.now();
const tree: { id: string; children: readonly { id: string }[] }[] = [];
for (let i = 0; i < flows; i += 32) {
  const batch = Array.from({ length: Math.min(32, flows - i) }, (_, j) =>
    producer.enqueueFlow({ kind: 'whole', payload: { n: i + j }, children: Array.from({ length: 10 }, (_, n) => ({ kind: 'part' as const, payload: { n } })) }),
  );
  tree.push(...(await Promise.all(batch)));
}
const enqueuedMs = performance.now() - t0;
await finished;
const totalMs = performance.now() - t0;
await worker.close();

const delays: number[] = [];
for (const flow of tree) {
  const children = await Promise.all(flow.children.map((child) => producer.getJob(child.id)));
  const lastChild = Math.max(...children.map((child) => child?.completedAtMs ?? Number.NaN));
  delays.push((started.get(flow.id) as number) - lastChild);
}
await producer.close();
await server.stop();

const sorted = [...delays].sort((a, b) => a - b);
const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
process.stdout.write(`${flows} flows of 1 parent + 10 children, worker concurrency 16\n`);
process.stdout.write(`enqueued in ${enqueuedMs.toFixed(0)} ms (${((flows * 1000) / enqueuedMs).toFixed(0)} flows/s, ${((flows * 11000) / enqueuedMs).toFixed(0)} jobs/s)\n`);
process.stdout.write(`all parents completed after ${totalMs.toFixed(0)} ms: ${((flows * 1000) / totalMs).toFixed(0)} flows/s (${((flows * 11000) / totalMs).toFixed(0)} jobs/s)\n`);
process.stdout.write(`last child completed -> parent started: median ${at(0.5)} ms, p99 ${at(0.99)} ms, worst ${sorted[sorted.length - 1]} ms\n`);
