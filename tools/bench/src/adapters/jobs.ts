import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProducer, defineKinds } from '@jobs/producer';
import { createWorker, type HandlerMap, type PayloadTypesOf, type Worker } from '@jobs/worker';
import type { AdapterFactory, BenchPayload } from '../adapter.ts';

const kinds = defineKinds({
  bench: { schema: { type: 'object', properties: { n: { type: 'integer' }, sentAt: { type: 'number' } }, required: ['n', 'sentAt'], additionalProperties: false } },
});

/** A no-op isolated handler module, written once per run (a file, whether the bench runs from source or from dist). */
let noopModule: string | undefined;
function isolatedNoop(): string {
  noopModule ??= join(mkdtempSync(join(tmpdir(), 'jobs-bench-')), 'noop.mjs');
  writeFileSync(noopModule, 'export default () => null;\n');
  return noopModule;
}

/** @jobs: schema-validated enqueue; claim with token + lease; fenced complete; capped history. */
export const jobsAdapter: AdapterFactory = async (redisUrl, queue) => {
  const producer = createProducer({ redis: redisUrl, queue, kinds });
  const workers: Worker<unknown>[] = [];
  /**
   * Starts a worker with `handlers`, kept by count alone, no sweeps, ready before the first job;
   * with `paused`, it starts quiet (claiming nothing) and the function returned lets it claim.
   */
  const start = async (concurrency: number, handlers: HandlerMap<PayloadTypesOf<typeof kinds>>, onDone: (payload: BenchPayload) => void, paused = false): Promise<() => void> => {
    const worker = createWorker({
      redis: redisUrl,
      queue,
      kinds,
      concurrency,
      completedHistory: 1_000,
      // Kept by count alone, like BullMQ's removeOnComplete: 1000 (no age limit as well).
      completedTtlSeconds: 0,
      reclaimIntervalMs: 0,
      handlers,
      autorun: !paused,
    });
    worker.on('completed', ({ job }) => onDone(job.payload as BenchPayload));
    if (paused) {
      // Quiet before it runs: it starts up in full (connection, layout, notices) and claims nothing.
      void worker.quiet();
      worker.run();
    }
    workers.push(worker as Worker<unknown>);
    // As the other adapters wait for theirs: the first jobs must not wait for the worker's start-up.
    await worker.ready();
    return () => worker.resumeClaiming();
  };
  return {
    name: '@jobs',
    guarantees: 'payload validated against a JSON schema; atomic claim with fencing token and lease (renewed); fenced complete; retries with backoff; counters; completed history capped at 1000, hashes deleted as they leave it, no TTL (as BullMQ\'s removeOnComplete: 1000); events published when someone listens',
    enqueue: async (payload) => {
      await producer.enqueue('bench', payload);
    },
    enqueueBulk: async (payloads) => {
      await producer.enqueueMany(payloads.map((payload) => ({ kind: 'bench' as const, payload })));
    },
    startWorkers: async (concurrency, onStart, onDone) => {
      await start(
        concurrency,
        {
          bench: (payload) => {
            onStart(payload);
            return null;
          },
        },
        onDone,
      );
    },
    startIsolatedWorkers: async (concurrency, onDone) => {
      await start(concurrency, { bench: { isolate: 'thread', module: isolatedNoop(), pool: concurrency } }, onDone);
    },
    startPausedWorkers: (concurrency, onDone) => start(concurrency, { bench: () => null }, onDone, true),
    close: async () => {
      await Promise.all(workers.map((worker) => worker.close({ graceMs: 1_000 })));
      await producer.close();
    },
  };
};
