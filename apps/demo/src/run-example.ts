import { createProducer, describeRedis, isJobsError, type QueueStats } from '@jobs/producer';
import { createWorker, PermanentError } from '@jobs/worker';
import { Redis } from 'ioredis';
import { demoKinds } from './kinds.ts';

/** Options of {@link runExample}. */
export interface ExampleOptions {
  /** Redis URL or client. */
  redis: string | Redis;
  /** Queue name. Default `demo`. */
  queue?: string;
  /** How many jobs to enqueue. Default 40. */
  jobs?: number;
  /** How many jobs run at once. Default 4. */
  workers?: number;
  /** Where lines go. Default stdout. */
  log?: (line: string) => void;
}

const KINDS = ['email', 'webhook', 'thumbnail', 'invoice'] as const;

/** A mixed batch of the four kinds, one of them delayed. */
function batch(count: number) {
  return Array.from({ length: count }, (_, i) => {
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
  });
}

/**
 * The runnable example. A producer enqueues a batch (and has an invalid payload refused); a
 * recipe-style client on the same keys claims one job and "crashes" before finishing it; a
 * worker runs the rest with a handler per kind, retrying transient failures after their
 * backoff, dead-lettering a declined invoice, and sweeping the crashed claim back once its
 * lease expires. Prints what happens and resolves with the final stats.
 */
export async function runExample(options: ExampleOptions): Promise<QueueStats> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const queue = options.queue ?? 'demo';
  const producer = createProducer({ redis: options.redis, queue, kinds: demoKinds });
  log(`queue "${queue}" on ${describeRedis(options.redis)}`);

  try {
    await producer.enqueue('email', { recipient: 'not-an-address' });
  } catch (error) {
    if (!isJobsError(error, 'JOBS_VALIDATION')) throw error;
    log(`rejected before anything was written: ${error.message}`);
  }
  const ids = await producer.enqueueMany(batch(options.jobs ?? 40));
  log(`enqueued ${ids.length} jobs (email, webhook, thumbnail, invoice) in one round trip`);

  // A client of the redis.io recipe moves a job into processing, then dies before its stamp.
  const raw = typeof options.redis === 'string' ? new Redis(options.redis) : options.redis;
  const crashed = await raw.lmove(`queue:{${queue}}:pending`, `queue:{${queue}}:processing`, 'RIGHT', 'LEFT');
  if (raw !== options.redis) raw.disconnect();
  log(`a recipe worker claimed ${crashed} and crashed before finishing it`);

  const worker = createWorker({
    redis: options.redis,
    queue,
    kinds: demoKinds,
    concurrency: options.workers ?? 4,
    visibilityMs: 500,
    reclaimIntervalMs: 200,
    handlers: {
      email: ({ recipient, n = 0 }, { attempt }) => {
        if (n % 5 === 1 && attempt === 1) throw new Error('smtp timeout');
        return { sentTo: recipient, attempt };
      },
      webhook: ({ url, event }) => ({ posted: event, to: url }),
      thumbnail: ({ image, width }) => ({ thumbnail: `${image}@${width}w` }),
      invoice: ({ customerId, amountCents, n }) => {
        if (n === 8) throw new PermanentError(`card declined for ${customerId}`);
        return { charged: amountCents };
      },
    },
  });
  worker.on('retrying', ({ job, error }) => log(`retrying ${job.kind} ${job.id} after: ${(error as Error).message}`));
  worker.on('failed', ({ job, error }) => log(`dead-lettered ${job.kind} ${job.id}: ${(error as Error).message}`));

  let stats = await producer.stats();
  while (stats.completedTotal + stats.failedTotal < stats.enqueuedTotal) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    stats = await producer.stats();
  }
  await worker.close();
  const recovered = crashed ? await producer.getJob(crashed) : null;
  if (recovered?.reclaimedAtMs) log(`the crashed claim ${crashed} was reclaimed and then ${recovered.status}`);
  log(`done: ${stats.completedTotal} completed, ${stats.failedTotal} failed, ${stats.retriedTotal} retried, ${stats.reclaimedTotal} reclaimed`);
  log('stats:');
  for (const [name, value] of Object.entries(stats)) if (name !== 'nowMs') log(`  ${name.padEnd(20)} ${String(value)}`);
  await producer.close();
  return stats;
}
