import { closeOnSignals, createWorker, PermanentError } from '@jobs/worker';
import { kinds } from './kinds.js';

// new Worker('mail', processor, { connection, concurrency: 8, lockDuration: 30_000, stalledInterval: 30_000 })
export const worker = createWorker({
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  queue: 'mail',
  kinds,
  concurrency: 8,
  visibilityMs: 30_000, // lockDuration: the lease, renewed every third of it while a handler runs
  reclaimIntervalMs: 5_000, // stalledInterval: how often this worker returns expired leases to pending
  handlers: {
    // A handler per kind instead of a switch on job.name; the payload (job.data) is typed.
    welcome: async ({ userId, locale }, { attempt, maxAttempts, log }) => {
      log.info({ attempt, maxAttempts }, 'welcoming'); // attempt = job.attemptsMade + 1
      if (userId.startsWith('deleted_')) throw new PermanentError(`user ${userId} is gone`); // UnrecoverableError
      return { sent: true, locale: locale ?? 'en' }; // the return value, as in BullMQ
    },
    report: async ({ month }, ctx) => {
      await ctx.extendLease(5 * 60_000); // job.extendLock(token, ms)
      await ctx.progress({ step: 1, of: 2 }); // job.updateProgress(value)
      ctx.signal.throwIfAborted(); // aborted past timeoutMs, when the lease was lost, or at shutdown
      return { month, rows: 0 };
    },
    digest: async ({ team }) => ({ team, sent: true }),
  },
});

worker.on('completed', ({ job, result, durationMs }) => console.log(job.id, result, durationMs));
// BullMQ's 'failed' fires for every failed attempt; here an attempt that will run again is 'retrying'...
worker.on('retrying', ({ job, error, outcome }) => console.warn(job.id, outcome, error));
// ...and 'failed' means failed for good: the job is in the failed list (BullMQ's 'retries-exhausted').
worker.on('failed', ({ job, error }) => console.error(job.id, error));
// This worker's lease ran out and the job was reclaimed ('stalled'): it reports nothing for it.
worker.on('lost', ({ job, reason }) => console.warn(job.id, reason));
worker.on('error', (error) => console.error(error)); // Redis trouble; the worker keeps going

closeOnSignals(worker, { graceMs: 30_000 }); // process.on('SIGTERM', () => worker.close())
await worker.ready();
