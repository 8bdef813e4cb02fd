import { Redis } from 'ioredis';
import type { AdapterFactory, BenchPayload } from '../adapter.ts';

/** Plain Redis lists: LPUSH and BRPOP, one connection per consumer. No guarantees at all. */
export const rawListsAdapter: AdapterFactory = async (redisUrl, queue) => {
  const key = `raw:${queue}`;
  const producer = new Redis(redisUrl);
  const consumers: Redis[] = [];
  let running = true;
  return {
    name: 'Redis lists',
    guarantees: 'none: BRPOP removes the job; a crash loses it; no retries, no history',
    enqueue: async (payload) => {
      await producer.lpush(key, JSON.stringify(payload));
    },
    enqueueBulk: async (payloads) => {
      await producer.lpush(key, ...payloads.map((payload) => JSON.stringify(payload)));
    },
    startWorkers: async (concurrency, onStart, onDone) => {
      for (let i = 0; i < concurrency; i += 1) {
        const consumer = new Redis(redisUrl);
        consumers.push(consumer);
        void (async () => {
          while (running) {
            const popped = await consumer.brpop(key, 0.2).catch(() => null);
            if (!popped) continue;
            const payload = JSON.parse(popped[1]) as BenchPayload;
            onStart(payload);
            onDone(payload);
          }
        })();
      }
    },
    close: async () => {
      running = false;
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const consumer of consumers) consumer.disconnect();
      producer.disconnect();
    },
  };
};
