import { Queue, type ClaimedJob } from '@jobs/core';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createProducer, isJobsError, JobFailedError, type PayloadTypesOf } from '../src/index.ts';
import { kinds } from './kinds.ts';

describe('producer.enqueueFlow', () => {
  test('a flow on a partitioned queue lands in one partition; its parent result waits for the children', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds, partitions: 2 });
    const flow = await producer.enqueueFlow({
      kind: 'email',
      payload: { recipient: 'a@example.com' },
      children: [
        { kind: 'resize', payload: { image: 'a.png', width: 64 } },
        { kind: 'resize', payload: { image: 'b.png', width: 64 } },
      ],
    });
    const suffix = flow.id.slice(flow.id.lastIndexOf('.'));
    for (const child of flow.children) expect(child.id.endsWith(suffix)).toBe(true);
    const partition = new Queue<PayloadTypesOf<typeof kinds>>({ redis, queue: `${queueName}:${suffix.slice(1)}`, kinds });
    const children = await partition.claim({ max: 5 });
    expect(children.map((job) => job.id).sort()).toEqual(flow.children.map((child) => child.id).sort());
    for (const job of children) await partition.complete(job, { resized: job.id });
    const [parent] = (await partition.claim()) as [ClaimedJob];
    expect(parent.id).toBe(flow.id);
    expect(Object.values(await producer.children(flow.id)).map((child) => child.status)).toEqual(['completed', 'completed']);
    const result = producer.waitForResult(flow.id, { timeoutMs: 5_000 });
    await partition.complete(parent, 'both resized');
    expect(await result).toBe('both resized');
    await partition.close();
    await producer.close();
  });

  test('an invalid child writes nothing; a child that fails for good rejects the wait on its parent with JOBS_CHILD_FAILED', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const bad = await producer
      .enqueueFlow({ kind: 'email', payload: { recipient: 'a@example.com' }, children: [{ kind: 'resize', payload: { image: 'a.png', width: -1 } }] })
      .catch((e: unknown) => e);
    expect(isJobsError(bad, 'JOBS_VALIDATION')).toBe(true);
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
    const flow = await producer.enqueueFlow({ kind: 'email', payload: { recipient: 'a@example.com' }, children: [{ kind: 'resize', payload: { image: 'a.png', width: 1 } }] });
    const worker = new Queue<PayloadTypesOf<typeof kinds>>({ redis, queue: queueName, kinds });
    const [child] = (await worker.claim()) as [ClaimedJob];
    const wait = producer.waitForResult(flow.id, { timeoutMs: 5_000 }).catch((e: unknown) => e);
    await worker.fail(child, 'no such image', { permanent: true });
    const error = await wait;
    expect(error).toBeInstanceOf(JobFailedError);
    expect((error as JobFailedError).lastError).toBe(`JOBS_CHILD_FAILED: child ${child.id} (resize) failed: no such image`);
    await worker.close();
    await producer.close();
  });
});
