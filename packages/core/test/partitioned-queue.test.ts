import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, Queue, partitionOfKey, type ClaimedJob, type PayloadTypesOf } from '../src/index.ts';
import { kinds } from './fixtures.ts';

function open(redisUrl: string, queue: string, partitions: number): Queue<PayloadTypesOf<typeof kinds>> {
  return new Queue({ redis: redisUrl, queue, kinds, partitions });
}

describe('partitioned queues', () => {
  test('partition keys hash with FNV-1a, the same in every process', () => {
    // FNV-1a 32-bit test vectors: "a" = 0xe40c292c, "foobar" = 0xbf9cf968.
    expect(partitionOfKey('a', 2 ** 31)).toBe(0xe40c292c % 2 ** 31);
    expect(partitionOfKey('foobar', 1_000)).toBe(0xbf9cf968 % 1_000);
    expect(() => partitionOfKey('', 4)).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'partitionKey' }));
  });

  test('jobs go round robin over the partitions, 1024 at a time, each an ordinary queue under its own hash tag', async ({ redis, redisUrl, queueName }) => {
    const queue = open(redisUrl, queueName, 4);
    const total = 5 * 1_024;
    const ids = await Promise.all(Array.from({ length: total }, (_, n) => queue.enqueue('email', { recipient: 'a@example.com', n })));
    // Runs of 1024 from the client's first partition f: f, f+1, f+2, f+3, then f again.
    const first = queue.partitions.indexOf(queue.partitionOf(ids[0] as string) as (typeof queue.partitions)[number]);
    expect(first).toBeGreaterThanOrEqual(0);
    for (let p = 0; p < 4; p += 1) {
      const expected = p === first ? 2_048 : 1_024;
      expect(await redis.llen(`queue:{${queueName}:p${p}}:pending`)).toBe(expected);
      expect(ids.filter((id) => id.endsWith(`.p${p}`))).toHaveLength(expected);
    }
    expect(ids.every((id, n) => id.endsWith(`.p${(first + Math.floor(n / 1_024)) % 4}`))).toBe(true);
    expect(await redis.get(`queue:{${queueName}}:partitions`)).toBe('4');
    expect((await queue.stats()).pendingDepth).toBe(total);
    await queue.close();
  });

  test('clients start their round robin at different partitions, so many small producers do not all fill partition 0', async ({ redis, queueName }) => {
    const firsts = new Set<number>();
    for (let client = 0; client < 40; client += 1) {
      const queue = new Queue({ redis, queue: queueName, kinds, partitions: 4 });
      firsts.add(queue.partitions.indexOf(queue.partitionFor()));
      await queue.close();
    }
    // 40 clients all starting at one partition: a chance of 4 in 4^40 if the starts are random.
    expect(firsts.size).toBeGreaterThan(1);
  });

  test('list pages the partitions as one list, past the first 1000 jobs of a partition', async ({ redisUrl, queueName }) => {
    const queue = open(redisUrl, queueName, 4);
    const keyFor = (p: number): string => ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].find((key) => partitionOfKey(key, 4) === p) as string;
    const [first, second] = [0, 1].map(keyFor) as [string, string];
    const inFirst = (await queue.enqueueMany(Array.from({ length: 1_100 }, (_, n) => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', n }, options: { partitionKey: first } })))).map((r) => r.id);
    const inSecond = (await queue.enqueueMany(Array.from({ length: 5 }, (_, n) => ({ kind: 'email' as const, payload: { recipient: 'b@example.com', n }, options: { partitionKey: second } })))).map((r) => r.id);
    // Oldest first within a partition, partition 0 before partition 1.
    const page = await queue.list('pending', { offset: 1_098, limit: 5 });
    expect(page.map((job) => job.id)).toEqual([...inFirst.slice(1_098), ...inSecond.slice(0, 3)]);
    expect((await queue.list('pending', { offset: 1_104, limit: 50 })).map((job) => job.id)).toEqual([inSecond[4]]);
    expect(await queue.list('pending', { offset: 1_105 })).toEqual([]);
    expect((await queue.list('pending', { limit: 2 })).map((job) => job.id)).toEqual(inFirst.slice(0, 2));
    await expect(queue.list('nowhere' as never)).rejects.toMatchObject({ code: 'JOBS_INVALID_ARGUMENT', field: 'state' });
    await queue.close();
  });

  test('one partition key, one partition: its jobs are claimed in the order they were enqueued', async ({ redisUrl, queueName }) => {
    const queue = open(redisUrl, queueName, 8);
    const ids: string[] = [];
    for (let n = 0; n < 20; n += 1) ids.push(await queue.enqueue('email', { recipient: 'a@example.com', n }, { partitionKey: 'customer-42' }));
    const partition = queue.partitionFor({ partitionKey: 'customer-42' });
    expect(new Set(ids.map((id) => queue.partitionOf(id)))).toEqual(new Set([partition]));
    const claimed = await partition.claim({ max: 20 });
    expect(claimed.map((job) => job.id)).toEqual(ids);
    await queue.completeMany(claimed.map((job) => ({ job, result: null })));
    await queue.close();
  });

  test('an idempotency key picks the partition, so a resent enqueue finds its first copy', async ({ redisUrl, queueName }) => {
    const queue = open(redisUrl, queueName, 4);
    const first = await queue.enqueue('email', { recipient: 'a@example.com' }, { idempotencyKey: 'order-7' });
    const again = await Promise.all([1, 2, 3].map(() => queue.enqueue('email', { recipient: 'a@example.com' }, { idempotencyKey: 'order-7' })));
    expect(again).toEqual([first, first, first]);
    expect((await queue.stats()).enqueuedTotal).toBe(1);
    await queue.close();
  });

  test('ids name their partition: getJob and cancel go straight to it', async ({ redisUrl, queueName }) => {
    const queue = open(redisUrl, queueName, 3);
    const ids = await Promise.all([0, 1, 2].map((n) => queue.enqueue('email', { recipient: 'a@example.com', n }, { delayMs: 60_000 })));
    for (const id of ids) expect(await queue.getJob(id)).toMatchObject({ id, status: 'delayed' });
    expect(await queue.cancel(ids[1] as string)).toEqual({ cancelled: true, wasRunning: false });
    expect(await queue.getJob(ids[1] as string)).toMatchObject({ status: 'cancelled' });
    expect(await queue.getJob('0123456789abcdef.p2')).toBeNull();
    expect((await queue.stats()).delayedDepth).toBe(2);
    await queue.close();
  });

  test('a batch spread over partitions validates every payload before writing any', async ({ redis, redisUrl, queueName }) => {
    const queue = open(redisUrl, queueName, 4);
    const error = await queue
      .enqueueMany([
        // Keys 'a', 'b' and 'c' hash to partitions 0, 1 and 2 of 4.
        { kind: 'email', payload: { recipient: 'a@example.com' }, options: { partitionKey: 'a' } },
        { kind: 'email', payload: { recipient: 'b@example.com' }, options: { partitionKey: 'b' } },
        { kind: 'email', payload: { recipient: 'not an email' }, options: { partitionKey: 'c' } },
      ])
      .catch((e: unknown) => e);
    expect(['a', 'b', 'c'].map((key) => partitionOfKey(key, 4))).toEqual([0, 1, 2]);
    expect(isJobsError(error, 'JOBS_VALIDATION')).toBe(true);
    expect(error).toMatchObject({ field: 'jobs[2].payload' });
    expect((await queue.stats()).pendingDepth).toBe(0);
    expect(await redis.exists(`queue:{${queueName}}:partitions`)).toBe(0);
    await queue.close();
  });

  test('the count is recorded: another count, or the plain queue of that name, is refused', async ({ redisUrl, queueName }) => {
    const queue = open(redisUrl, queueName, 4);
    await queue.enqueue('email', { recipient: 'a@example.com' });
    const other = open(redisUrl, queueName, 2);
    const mismatch = await other.enqueue('email', { recipient: 'a@example.com' }).catch((e: unknown) => e);
    expect(mismatch).toMatchObject({ code: 'JOBS_INVALID_ARGUMENT', field: 'partitions' });
    const plain = new Queue({ redis: redisUrl, queue: queueName, kinds });
    const refused = await plain.enqueue('email', { recipient: 'a@example.com' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'JOBS_INVALID_ARGUMENT', field: 'partitions' });
    expect((await queue.stats()).enqueuedTotal).toBe(1);
    await Promise.all([queue.close(), other.close(), plain.close()]);
  });

  test('one partition is the plain queue itself, ids and keys unchanged', async ({ redis, redisUrl, queueName }) => {
    const queue = open(redisUrl, queueName, 1);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(await redis.lrange(`queue:{${queueName}}:pending`, 0, -1)).toEqual([id]);
    const [job] = (await queue.partitions[0]!.claim()) as [ClaimedJob];
    expect(job.id).toBe(id);
    await queue.close();
  });

  test("the verbs of a claimed job find its partition by the job's id; the verbs of one partition at a time refuse a partitioned queue", async ({ redis, redisUrl, queueName }) => {
    const queue = open(redisUrl, queueName, 3);
    const id = await queue.enqueue('email', { recipient: 'a@example.com' }, { partitionKey: 'k' });
    const partition = queue.partitionOf(id)!;
    const [job] = (await partition.claim()) as [ClaimedJob];
    await queue.progress(job, { half: true });
    expect(await queue.extendLease(job, 60_000)).toBeGreaterThan(0);
    await queue.complete(job, 'done');
    expect(await redis.hget(`queue:{${partition.name}}:job:${id}`, 'status')).toBe('completed');
    expect(() => queue.claim()).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'partitions' }));
    expect(() => queue.purge()).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'partitions' }));
    expect(() => queue.complete({ ...job, id: 'foreign-id' }, null)).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'job' }));
    await queue.close();
  });
});
