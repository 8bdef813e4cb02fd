/**
 * A worker service of the chaos and failover runs, in its own process so that it can be
 * SIGKILLed mid-job. Every execution is written to a ledger file before and after (see
 * ledger.ts). `REDIS_URL` may name a cluster (`redis+cluster://`); `DURABLE_REPLICAS` > 0 turns
 * on durable mode (completions and failures wait for that many replicas); `PARTITIONS` > 1
 * serves a partitioned queue.
 */
import { closeOnSignals, createWorker, type JobContext } from '@jobs/worker';
import { CHAOS_QUEUE, CHAOS_VISIBILITY_MS, chaosKinds } from './kinds.ts';
import { appendLedger } from './ledger.ts';

const dir = process.env.LEDGER_DIR as string;
const pid = process.pid;
const replicas = Number(process.env.DURABLE_REPLICAS ?? 0);
const partitions = Number(process.env.PARTITIONS ?? 1);

/** Every kind runs the same step: sleep `ms`, fail now and then; the ledger frames it. */
async function runStep({ ms, group }: { ms: number; group?: string }, { id, kind, attempt, signal }: JobContext): Promise<{ pid: number; attempt: number }> {
  appendLedger(dir, { e: 'start', id, attempt, pid, t: Date.now(), ...(kind !== 'step' && { kind }), ...(group !== undefined && { group }) });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
    if (Math.random() < 0.03) throw new Error('a transient failure');
    return { pid, attempt };
  } finally {
    appendLedger(dir, { e: 'end', id, attempt, pid, t: Date.now() });
  }
}

const worker = createWorker({
  redis: process.env.REDIS_URL as string,
  queue: CHAOS_QUEUE,
  kinds: chaosKinds,
  partitions,
  concurrency: 4,
  visibilityMs: CHAOS_VISIBILITY_MS,
  reclaimIntervalMs: 250,
  commandTimeoutMs: 5_000,
  // The checks read every acknowledged job's hash after the run. A completed or failed job's hash
  // goes once the job is trimmed off its history (10,000 by default), so a run longer than that
  // (`--seconds 600` enqueues over 100,000) would count trimmed jobs as lost: keep them all.
  completedHistory: 10_000_000,
  failedHistory: 10_000_000,
  ...(replicas > 0 && { durability: { replicas } }),
  handlers: { step: runStep, capped: runStep, grouped: runStep },
});
const report = (outcome: 'completed' | 'retrying' | 'failed' | 'lost') => ({ job }: { job: { id: string; attempts: number } }) =>
  appendLedger(dir, { e: 'report', id: job.id, attempt: job.attempts, pid, t: Date.now(), outcome });
worker.on('completed', report('completed'));
worker.on('retrying', report('retrying'));
worker.on('failed', report('failed'));
worker.on('lost', report('lost'));
worker.on('error', () => undefined);
closeOnSignals(worker, { graceMs: 2_000 });
process.stdout.write('ready\n');
