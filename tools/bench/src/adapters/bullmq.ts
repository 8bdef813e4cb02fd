import { Queue, Worker } from 'bullmq';
import type { AdapterFactory, BenchPayload } from '../adapter.ts';

/** BullMQ 6.7.0 with its defaults, keeping the last 1000 completed jobs. */
export const bullmqAdapter: AdapterFactory = async (redisUrl, queue) => {
  const url = new URL(redisUrl);
  const connection = { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null };
  const producer = new Queue(queue, { connection, defaultJobOptions: { removeOnComplete: 1_000, removeOnFail: 1_000 } });
  const workers: Worker[] = [];
  return {
    name: 'BullMQ',
    guarantees: 'atomic claim with lock token and lock renewal; fenced complete; stalled-job checks; events stream (XADD per job); completed jobs kept: last 1000',
    enqueue: async (payload) => {
      await producer.add('bench', payload);
    },
    enqueueBulk: async (payloads) => {
      await producer.addBulk(payloads.map((data) => ({ name: 'bench', data })));
    },
    startWorkers: async (concurrency, onStart, onDone) => {
      const worker = new Worker(
        queue,
        async (job) => {
          onStart(job.data as BenchPayload);
          return null;
        },
        { connection, concurrency },
      );
      worker.on('completed', (job) => onDone(job.data as BenchPayload));
      await worker.waitUntilReady();
      workers.push(worker);
    },
    startPausedWorkers: async (concurrency, onDone) => {
      // Not run until told: both its connections (the blocking one too) are ready, and nothing is fetched.
      const worker = new Worker(queue, async () => null, { connection, concurrency, autorun: false });
      worker.on('completed', (job) => onDone(job.data as BenchPayload));
      workers.push(worker);
      await worker.waitUntilReady();
      return () => {
        worker.run().catch((error: unknown) => worker.emit('error', error as Error));
      };
    },
    close: async () => {
      await Promise.all(workers.map((worker) => worker.close()));
      await producer.close();
    },
  };
};
