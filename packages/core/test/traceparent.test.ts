import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, Queue, RedisScheduleStore, ScheduleRunner } from '../src/index.ts';
import { kinds, openQueue } from './fixtures.ts';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const OTHER = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';

describe('traceparent: stored at enqueue, returned by the claims of a worker that traces', () => {
  test('an enqueue with a traceparent stores it on the job; one without stores no field', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const traced = await queue.enqueue('email', { recipient: 'a@example.com' }, { traceparent: TRACEPARENT });
    const plain = await queue.enqueue('email', { recipient: 'b@example.com' });
    expect(await redis.hget(`queue:{${queueName}}:job:${traced}`, 'traceparent')).toBe(TRACEPARENT);
    expect(await redis.hexists(`queue:{${queueName}}:job:${plain}`, 'traceparent')).toBe(0);
    expect((await queue.getJob(traced))?.traceparent).toBe(TRACEPARENT);
    expect((await queue.getJob(plain))?.traceparent).toBeUndefined();
    await queue.close();
  });

  test('the traceparent rides beside the other options (delay, priority, idempotency key) and enqueueMany', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const delayed = await queue.enqueue('email', { recipient: 'a@example.com' }, { delayMs: 60_000, priority: 5, idempotencyKey: 'k', traceparent: TRACEPARENT });
    const results = await queue.enqueueMany([
      { kind: 'email', payload: { recipient: 'b@example.com' }, options: { traceparent: OTHER } },
      { kind: 'email', payload: { recipient: 'c@example.com' } },
    ]);
    const delayedJob = await queue.getJob(delayed);
    expect(delayedJob).toMatchObject({ status: 'delayed', priority: 5, traceparent: TRACEPARENT });
    expect((await queue.getJob(results[0]?.id as string))?.traceparent).toBe(OTHER);
    expect(await redis.hexists(`queue:{${queueName}}:job:${results[1]?.id}`, 'traceparent')).toBe(0);
    await queue.close();
  });

  test('a malformed traceparent is refused with a typed error naming the field, and nothing is written', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const bad = ['01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01', 'x', ''];
    for (const traceparent of bad) {
      const error = await queue.enqueue('email', { recipient: 'a@example.com' }, { traceparent }).catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT')).toBe(true);
      expect((error as { field?: string }).field).toBe('options.traceparent');
    }
    const many = await queue.enqueueMany([{ kind: 'email', payload: { recipient: 'a@example.com' } }, { kind: 'email', payload: { recipient: 'b@example.com' }, options: { traceparent: 'nope' } }]).catch((e: unknown) => e);
    expect((many as { field?: string }).field).toBe('jobs[1].options.traceparent');
    expect((await queue.stats()).pendingDepth).toBe(0);
    await queue.close();
  });

  test('a claim returns the traceparent only when the queue was opened with claimTraceparent', async ({ redis, queueName }) => {
    const plain = openQueue(redis, queueName);
    const tracing = new Queue({ redis, queue: queueName, kinds, claimTraceparent: true });
    await plain.enqueueMany([
      { kind: 'email', payload: { recipient: 'a@example.com' }, options: { traceparent: TRACEPARENT } },
      { kind: 'email', payload: { recipient: 'b@example.com' } },
      { kind: 'email', payload: { recipient: 'c@example.com' }, options: { traceparent: OTHER } },
    ]);
    const [untraced] = await plain.claim();
    expect(untraced?.traceparent).toBeUndefined();
    expect(untraced?.fields.traceparent).toBeUndefined();
    const traced = await tracing.claim({ max: 2 });
    expect(traced.map((job) => [job.payload, job.traceparent, job.fields.traceparent])).toEqual([
      [{ kind: 'email', recipient: 'b@example.com' }, undefined, undefined],
      [{ kind: 'email', recipient: 'c@example.com' }, OTHER, OTHER],
    ]);
    // Every other value of the job reads as without tracing.
    expect(traced[1]).toMatchObject({ attempts: 1, kind: 'email', priority: 0, status: 'processing' });
    await plain.close();
    await tracing.close();
  });

  test('complete-and-claim returns the next jobs with their traceparents to a queue that traces', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, claimTraceparent: true });
    await queue.enqueue('email', { recipient: 'a@example.com' });
    await queue.enqueueMany([
      { kind: 'email', payload: { recipient: 'b@example.com' }, options: { traceparent: TRACEPARENT } },
      { kind: 'email', payload: { recipient: 'c@example.com' }, options: { traceparent: OTHER, priority: -1 } },
    ]);
    const [first] = await queue.claim();
    const { completed, next } = await queue.completeAndClaim(first as NonNullable<typeof first>, 'ok', { max: 5 });
    expect(completed).toBe(true);
    expect(next.map((job) => job.traceparent)).toEqual([TRACEPARENT, OTHER]);
    const untraced = openQueue(redis, queueName);
    await untraced.enqueue('email', { recipient: 'd@example.com' }, { traceparent: TRACEPARENT });
    const after = await untraced.completeManyAndClaim(next.map((job) => ({ job, result: 1 })), { max: 5 });
    expect(after.next.map((job) => [job.payload, job.traceparent])).toEqual([[{ kind: 'email', recipient: 'd@example.com' }, undefined]]);
    await queue.close();
    await untraced.close();
  });

  test('a retried job keeps its traceparent for its next attempt', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, claimTraceparent: true });
    await queue.enqueue('email', { recipient: 'a@example.com' }, { traceparent: TRACEPARENT });
    const [first] = await queue.claim();
    await queue.fail(first as NonNullable<typeof first>, new Error('again'), { retryDelayMs: 0 });
    const [second] = await queue.claim();
    expect(second).toMatchObject({ attempts: 2, traceparent: TRACEPARENT });
    await queue.close();
  });

  test("a schedule's job carries no traceparent (a schedule has no enqueue context)", async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, claimTraceparent: true });
    await queue.schedules.upsert({ id: 'tick', kind: 'email', payload: { recipient: 'a@example.com' }, cron: '* * * * * *', limit: 1 });
    const runner = new ScheduleRunner({ store: new RedisScheduleStore(queue.client, queue.keys) });
    runner.start();
    const [job] = await queue.claim({ blockMs: 5_000 });
    await runner.stop();
    expect(job?.id).toMatch(/^sched:tick:/);
    expect(job?.traceparent).toBeUndefined();
    expect(await redis.hexists(`queue:{${queueName}}:job:${job?.id}`, 'traceparent')).toBe(0);
    await queue.close();
  });

  test('a partitioned queue stores the traceparent on the partition the job goes to', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 3, claimTraceparent: true });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' }, { partitionKey: 'user-1', traceparent: TRACEPARENT });
    expect((await queue.getJob(id))?.traceparent).toBe(TRACEPARENT);
    const partition = queue.partitionOf(id)!;
    const [job] = await partition.claim();
    expect(job?.traceparent).toBe(TRACEPARENT);
    await queue.close();
  });
});

describe('traceparent: flows', () => {
  test("a flow's jobs take the root's traceparent, unless a job has its own", async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, claimTraceparent: true });
    const flow = await queue.enqueueFlow({
      kind: 'email',
      payload: { recipient: 'parent@example.com' },
      options: { traceparent: TRACEPARENT },
      children: [
        { kind: 'email', payload: { recipient: 'a@example.com' }, children: [{ kind: 'email', payload: { recipient: 'b@example.com' }, options: { delayMs: 60_000 } }] },
        { kind: 'email', payload: { recipient: 'c@example.com' }, options: { traceparent: OTHER } },
      ],
    });
    const stored = async (id: string): Promise<string | null> => redis.hget(`queue:{${queueName}}:job:${id}`, 'traceparent');
    const [a, c] = flow.children;
    expect(await stored(flow.id)).toBe(TRACEPARENT);
    expect(await stored(a?.id as string)).toBe(TRACEPARENT);
    expect(await stored(a?.children[0]?.id as string)).toBe(TRACEPARENT);
    expect(await stored(c?.id as string)).toBe(OTHER);
    const claimed = await queue.claim({ max: 5 });
    expect(Object.fromEntries(claimed.map((job) => [job.id, job.traceparent]))).toEqual({ [c?.id as string]: OTHER });
    await queue.close();
  });

  test('a flow without a traceparent stores none, and a bad one is refused before anything is written', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ kind: 'email', payload: { recipient: 'p@example.com' }, children: [{ kind: 'email', payload: { recipient: 'a@example.com' } }] });
    expect(await redis.hexists(`queue:{${queueName}}:job:${flow.id}`, 'traceparent')).toBe(0);
    expect(await redis.hexists(`queue:{${queueName}}:job:${flow.children[0]?.id}`, 'traceparent')).toBe(0);
    const before = (await queue.stats()).enqueuedTotal;
    const error = await queue
      .enqueueFlow({ kind: 'email', payload: { recipient: 'p@example.com' }, children: [{ kind: 'email', payload: { recipient: 'a@example.com' }, options: { traceparent: 'bad' } }] })
      .catch((e: unknown) => e);
    expect((error as { field?: string }).field).toBe('flow.children[0].options.traceparent');
    expect((await queue.stats()).enqueuedTotal).toBe(before);
    await queue.close();
  });
});
