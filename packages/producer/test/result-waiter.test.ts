import { Queue, type ClaimedJob, type JobRecord } from '@jobs/core';
import { redisTest as test, waitFor, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { ResultWaiter } from '../src/result-waiter.ts';
import { kinds } from './kinds.ts';

describe('ResultWaiter', () => {
  test("a wait is woken by the job's completed event, not by re-reading the job (on a cluster too)", async ({ redisUrl, queueName }) => {
    const queue = new Queue({ redis: redisUrl, queue: queueName, kinds });
    const reads: (string | undefined)[] = [];
    const readJob = async (id: string): Promise<JobRecord | null> => {
      const job = await queue.getJob(id);
      reads.push(job?.status);
      return job;
    };
    // No re-read for a minute (the recheck and the wait's deadline), far past the deadline
    // below: once the wait has seen the job pending, only the event on the queue's channel can
    // end it in time.
    const waiter = new ResultWaiter(queue.client, () => queue.keys.events, readJob, 60_000);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const waiting = waiter.wait(id, 60_000);
    await waitFor(() => reads.length === 1, { what: 'the wait to subscribe and read the job' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(job, 'by event');
    expect((await within(waiting, 15_000, () => 'the wait was not woken by the completed event')).result).toBe('by event');
    expect(reads).toEqual(['pending', 'completed']);
    await waiter.close();
    await queue.close();
  });
  test('progress heard late from the events channel is not replayed after a newer stored report: each report once, in order', async ({ redisUrl, redis, queueName }) => {
    const queue = new Queue({ redis: redisUrl, queue: queueName, kinds });
    const waiter = new ResultWaiter(queue.client, () => queue.keys.events, (id) => queue.getJob(id), 60_000);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.progress(job, { step: 1 });
    await queue.progress(job, { step: 2 });
    const heard: unknown[] = [];
    const waiting = waiter.wait(id, 10_000, undefined, (progress) => heard.push(progress));
    await waitFor(() => heard.length === 1, { what: 'the stored progress' });
    // Step 1's event, as if it reached the subscriber after the read that saw step 2.
    await redis.publish(queue.keys.events, JSON.stringify({ id, status: 'processing', progress: { step: 1 }, progress_seq: 1 }));
    await queue.progress(job, { step: 3 });
    await waitFor(() => heard.length >= 2, { what: 'the third report' });
    await queue.complete(job, 'done');
    await waiting;
    expect(heard).toEqual([{ step: 2 }, { step: 3 }]);
    await waiter.close();
    await queue.close();
  });
});
