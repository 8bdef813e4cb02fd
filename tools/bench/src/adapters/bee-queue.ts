import BeeQueue from 'bee-queue';
import type { AdapterFactory, BenchPayload } from '../adapter.ts';

/** bee-queue 2.0.0, removing jobs on success, events off (its "bq-min" setting). */
export const beeQueueAdapter: AdapterFactory = async (redisUrl, queue) => {
  const url = new URL(redisUrl);
  const redis = { host: url.hostname, port: Number(url.port) };
  const settings = { redis, getEvents: false, sendEvents: false, storeJobs: false, removeOnSuccess: true, removeOnFailure: true };
  const producer = new BeeQueue<BenchPayload>(queue, { ...settings, isWorker: false });
  await producer.ready();
  const workers: BeeQueue<BenchPayload>[] = [];
  return {
    name: 'bee-queue',
    guarantees: 'BRPOPLPUSH claim, no token or lease (stall detection only when checkStalledJobs runs); unfenced complete; jobs removed on success; no events',
    enqueue: async (payload) => {
      await producer.createJob(payload).save();
    },
    enqueueBulk: async (payloads) => {
      await producer.saveAll(payloads.map((payload) => producer.createJob(payload)));
    },
    startWorkers: async (concurrency, onStart, onDone) => {
      const worker = new BeeQueue<BenchPayload>(queue, { ...settings, isWorker: true });
      await worker.ready();
      worker.on('succeeded', (job) => onDone(job.data));
      worker.process(concurrency, async (job) => {
        onStart(job.data);
        return null;
      });
      workers.push(worker);
    },
    close: async () => {
      await Promise.all(workers.map((worker) => worker.close(1_000)));
      await producer.close(1_000);
    },
  };
};
