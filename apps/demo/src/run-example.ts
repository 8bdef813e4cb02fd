import { describeRedis, isJobsError, JobQueue, type ClaimedJob, type PayloadTypesOf, type QueueStats } from '@jobs/core';
import type { Redis } from 'ioredis';
import { demoKinds } from './kinds.ts';

/** Options of {@link runExample}. */
export interface ExampleOptions {
  /** Redis URL or client. */
  redis: string | Redis;
  /** Queue name. Default `demo`. */
  queue?: string;
  /** How many jobs to enqueue. Default 40. */
  jobs?: number;
  /** How many worker loops. Default 4. */
  workers?: number;
  /** Where lines go. Default stdout. */
  log?: (line: string) => void;
}

type DemoQueue = JobQueue<PayloadTypesOf<typeof demoKinds>>;

const KINDS = ['email', 'webhook', 'thumbnail', 'invoice'] as const;

/** Enqueues a mixed batch of the four kinds (one of them delayed) in one round trip. */
async function enqueueBatch(queue: DemoQueue, count: number): Promise<string[]> {
  const results = await queue.enqueueMany(
    Array.from({ length: count }, (_, i) => {
      const n = i + 1;
      switch (KINDS[i % KINDS.length]) {
        case 'email':
          return { kind: 'email' as const, payload: { recipient: `user${n}@example.com`, subject: 'Welcome', n } };
        case 'webhook':
          return { kind: 'webhook' as const, payload: { url: `https://hooks.example.com/${n}`, event: 'order.paid', n } };
        case 'thumbnail':
          return { kind: 'thumbnail' as const, payload: { image: `photos/${n}.jpg`, width: 256, n }, options: n === 3 ? { delayMs: 300 } : {} };
        default:
          return { kind: 'invoice' as const, payload: { customerId: `cus_${n}`, amountCents: 1_000 + n, currency: 'EUR' as const, n } };
      }
    }),
  );
  return results.map((r) => r.id);
}

/**
 * Stands in for real work. Every 5th email fails once (a transient SMTP error: retried after
 * its backoff), the 8th invoice is refused for good, and the first webhook's worker "crashes"
 * (never reports back), so the reclaim sweep has to return it once its lease expires.
 */
async function work(queue: DemoQueue, job: ClaimedJob, crashed: Set<string>): Promise<'completed' | 'failed' | 'crashed'> {
  const payload = job.payload as { kind: string; n?: number };
  const n = payload.n ?? 0;
  if (payload.kind === 'webhook' && n === 2 && crashed.size === 0) {
    crashed.add(job.id);
    return 'crashed';
  }
  try {
    if (payload.kind === 'email' && n % 5 === 1 && job.attempts === 1) throw new Error('smtp timeout');
    if (payload.kind === 'invoice' && n === 8) {
      await queue.fail(job, new Error('card declined'), { permanent: true });
      return 'failed';
    }
    await queue.complete(job, { worker: 'example', kind: payload.kind, attempts: job.attempts });
    return 'completed';
  } catch (error) {
    if (isJobsError(error, 'JOBS_LOST_CLAIM')) return 'failed';
    const outcome = await queue.fail(job, error);
    return outcome === 'failed' ? 'failed' : 'completed';
  }
}

/**
 * The runnable example: enqueue a batch, run worker loops that claim (blocking in Redis),
 * complete or fail each job, and a reclaim sweep for the crashed one; print what happens and
 * the queue's stats. Resolves with the final stats once every job is completed or failed.
 */
export async function runExample(options: ExampleOptions): Promise<QueueStats> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const queue: DemoQueue = new JobQueue({ redis: options.redis, queue: options.queue ?? 'demo', kinds: demoKinds, visibilityMs: 500 });
  const total = options.jobs ?? 40;
  log(`queue "${queue.name}" on ${describeRedis(options.redis)}, visibility ${queue.options.visibilityMs} ms`);

  try {
    await queue.enqueue('email', { recipient: 'not-an-address' });
  } catch (error) {
    if (!isJobsError(error, 'JOBS_VALIDATION')) throw error;
    log(`rejected before anything was written: ${error.message}`);
  }
  const ids = await enqueueBatch(queue, total);
  log(`enqueued ${ids.length} jobs (email, webhook, thumbnail, invoice) in one round trip`);

  const crashed = new Set<string>();
  const counts = { completed: 0, failed: 0, crashed: 0 };
  let finished = false;
  const workers = Array.from({ length: options.workers ?? 4 }, async () => {
    while (!finished) {
      const jobs = await queue.claim({ max: 4, blockMs: 100 });
      for (const job of jobs) counts[await work(queue, job, crashed)] += 1;
    }
  });
  const sweeper = (async () => {
    while (!finished) {
      const swept = await queue.reclaimStuck();
      if (swept.reclaimed.length > 0) log(`reclaim sweep returned ${swept.reclaimed.length} job(s) whose worker crashed: ${swept.reclaimed.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();

  let stats = await queue.stats();
  while (stats.completedTotal + stats.failedTotal < stats.enqueuedTotal) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    stats = await queue.stats();
  }
  finished = true;
  await Promise.all([...workers, sweeper]);
  log(`done: ${stats.completedTotal} completed, ${stats.failedTotal} failed, ${stats.retriedTotal} retried, ${stats.reclaimedTotal} reclaimed`);
  log('stats:');
  for (const [name, value] of Object.entries(stats)) if (name !== 'nowMs') log(`  ${name.padEnd(20)} ${String(value)}`);
  const [failedJob] = await queue.list('failed', { limit: 1 });
  if (failedJob) log(`dead letter ${failedJob.id} (${failedJob.kind}): ${failedJob.lastError}`);
  await queue.close();
  return stats;
}
