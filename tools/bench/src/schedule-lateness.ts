/**
 * How late a schedule's jobs start: one schedule ticking every second (cron with a seconds
 * field), two workers (each also running the schedules) on a private redis-server, for
 * `--ticks N` ticks (default 30). Prints, per tick, the ms from the tick to its handler's start,
 * then the median, p90 and worst. Run: `pnpm --filter @jobs/bench run bench:schedules`.
 */
import { startRedisServer } from '@jobs/dev-redis';
import { createProducer, defineKinds } from '@jobs/producer';
import { createWorker } from '@jobs/worker';

const kinds = defineKinds({ tick: { schema: { type: 'object', properties: {}, additionalProperties: false } } });
const ticksArg = process.argv.indexOf('--ticks');
const ticks = ticksArg > 0 ? Number(process.argv[ticksArg + 1]) : 30;

const server = await startRedisServer({ name: 'bench-schedules' });
const queue = `lateness-${process.pid}`;
const late: number[] = [];
let done: () => void = () => undefined;
const finished = new Promise<void>((resolve) => {
  done = resolve;
});
const handlers = {
  tick: (_payload: Record<string, never>, job: { id: string }) => {
    // The job id is sched:<schedule id>:<tick ms>; both clocks are this machine's here.
    late.push(Date.now() - Number(job.id.split(':').pop()));
    if (late.length >= ticks) done();
  },
};
const producer = createProducer({ redis: server.url, queue, kinds });
const workers = [createWorker({ redis: server.url, queue, kinds, handlers }), createWorker({ redis: server.url, queue, kinds, handlers })];
await producer.schedules.upsert({ id: 'every-second', kind: 'tick', payload: {}, cron: '* * * * * *' });
await finished;
await producer.schedules.remove('every-second');
await Promise.all(workers.map((worker) => worker.close()));
await producer.close();
await server.stop();

const sorted = [...late].sort((a, b) => a - b);
const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
process.stdout.write(`per tick (ms late): ${late.join(' ')}\n`);
process.stdout.write(`${late.length} ticks: median ${at(0.5)} ms, p90 ${at(0.9)} ms, worst ${sorted[sorted.length - 1]} ms\n`);
