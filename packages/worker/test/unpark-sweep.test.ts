import { Queue } from '@jobs/core';
import { isUnparkCall, killOperatorAt, redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds } from '../src/index.ts';

// Parked jobs that no claim and no resume will move back (a resume SIGKILLed halfway, a limit
// deleted behind the queue's back): the workers' own reclaim sweep moves them back, and they run.

const kinds = defineKinds({ task: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } });

/** Runs a worker with a fast reclaim sweep until `count` jobs of `queueName` completed; returns the ids it ran. */
async function runWithWorker(redis: Queue<unknown>['client'], queueName: string, count: number): Promise<Set<string>> {
  const ran = new Set<string>();
  const worker = createWorker({ redis, queue: queueName, kinds, reclaimIntervalMs: 50, handlers: { task: (_payload, { id }) => void ran.add(id) } });
  try {
    await waitFor(() => ran.size >= count, { timeoutMs: 20_000, what: `${count} jobs run (ran ${ran.size})` });
  } finally {
    await worker.close();
  }
  return ran;
}

describe("the workers' sweep", () => {
  test('moves back the jobs of a resume SIGKILLed halfway, and every job runs', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.pause({ kind: 'task' });
    await queue.enqueueMany(Array.from({ length: 300 }, (_, n) => ({ kind: 'task' as const, payload: { n } })));
    expect(await queue.claim({ max: 300 })).toHaveLength(0);
    await killOperatorAt(redisUrl, redis, { operation: 'resume', queue: queueName, kind: 'task', match: isUnparkCall, nth: 50 });
    expect(await queue.stats()).toMatchObject({ pendingDepth: 50, parkedDepth: 250, waitingDepth: 300 });
    expect((await runWithWorker(queue.client, queueName, 300)).size).toBe(300);
    expect(await queue.stats()).toMatchObject({ waitingDepth: 0, completedTotal: 300 });
    await queue.close();
  });

  test('moves back the jobs of a kind whose limit was deleted behind its back, and every job runs', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.setLimits({ kinds: { task: { concurrency: 1 } } });
    await queue.enqueueMany(Array.from({ length: 40 }, (_, n) => ({ kind: 'task' as const, payload: { n } })));
    const [first] = await queue.claim({ max: 40 });
    expect((await queue.stats()).parkedDepth).toBe(39);
    await redis.hdel(queue.keys.admission, 'cap_kind:task');
    // Its completion hands its running slot to one parked job; no claim moves the others.
    await queue.complete(first!, null);
    expect(await queue.stats()).toMatchObject({ pendingDepth: 1, parkedDepth: 38 });
    expect((await runWithWorker(queue.client, queueName, 39)).size).toBe(39);
    await queue.close();
  });
});
