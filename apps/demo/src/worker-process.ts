/**
 * One mock worker: a long-lived process the demo's supervisor forks. It runs the four kinds with
 * @jobs/worker and a handler map, one job at a time; each job sleeps the work latency, then
 * completes or fails by the configured rates; a "hang" kills this process while it holds the
 * job, so the job is abandoned with its lease and the reclaimer has something to recover.
 * Config arrives in the environment and then over IPC ({ type: 'configure', config }).
 */
import { closeOnSignals, createWorker, type JobContext } from '@jobs/worker';
import { demoKinds } from './kinds.ts';
import { rollOutcome, type WorkConfig } from './work-config.ts';

const name = process.env.DEMO_WORKER_NAME ?? `worker-${process.pid}`;
let config: WorkConfig = {
  workLatencyMs: Number(process.env.WORK_LATENCY_MS ?? 400),
  failRate: Number(process.env.FAIL_RATE ?? 0),
  hangRate: Number(process.env.HANG_RATE ?? 0),
};

process.on('message', (message: { type?: string; config?: WorkConfig }) => {
  if (message.type === 'configure' && message.config) config = message.config;
});
// The supervisor went away (the demo server stopped or crashed): do not linger.
process.on('disconnect', () => void worker.close({ graceMs: 1_000 }).finally(() => process.exit(0)));

async function simulate(payload: object, context: JobContext): Promise<unknown> {
  const outcome = rollOutcome(config);
  if (outcome === 'hang') {
    // A real crash: no complete, no fail, no lease renewal from here on.
    process.send?.({ type: 'hang', jobId: context.id });
    process.kill(process.pid, 'SIGKILL');
  }
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, config.workLatencyMs);
    context.signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(context.signal.reason);
    });
  });
  if (outcome === 'fail') throw new Error(`${name} simulated failure`);
  return { worker: name, echo: payload, attempts: context.attempt };
}

const worker = createWorker({
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  queue: process.env.QUEUE ?? 'jobs',
  kinds: demoKinds,
  concurrency: 1,
  visibilityMs: Number(process.env.VISIBILITY_MS ?? 5_000),
  // Sweeping is the demo server's job (its button and its auto-reclaim toggle).
  reclaimIntervalMs: 0,
  handlers: { email: simulate, webhook: simulate, thumbnail: simulate, invoice: simulate },
});
worker.on('completed', () => process.send?.({ type: 'processed' }));
worker.on('error', () => undefined);
closeOnSignals(worker, { graceMs: 2_000 });
process.send?.({ type: 'ready', name });
