import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { Queue, type PayloadTypesOf } from '../src/index.ts';
import { kinds, openQueue } from './fixtures.ts';

const mail = (n: number) => ({ recipient: 'a@example.com', n });
const hook = (n: number) => ({ url: `https://example.com/${n}` });

type TestQueue = Queue<PayloadTypesOf<typeof kinds>>;

/** Every id of `list('waiting')`, read `pageSize` at a time. */
async function pageThrough(queue: TestQueue, pageSize: number): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += pageSize) {
    const page = await queue.list('waiting', { offset, limit: pageSize });
    ids.push(...page.map((job) => job.id));
    if (page.length < pageSize) return ids;
  }
}

describe("list('waiting')", () => {
  test('on a queue without admission state it is the pending list, oldest first', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ids = (await queue.enqueueMany([0, 1, 2].map((n) => ({ kind: 'email' as const, payload: mail(n) })))).map((job) => job.id);
    expect((await queue.list('waiting')).map((job) => job.id)).toEqual(ids);
    expect(await queue.stats()).toMatchObject({ pendingDepth: 3, waitingDepth: 3, groupedDepth: 0 });
    await queue.close();
  });

  test('lists jobs of every priority and group in the order claims start them, across page boundaries', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    // Defaults first, so that the prioritized jobs go to their own lists (not pending, as carriers).
    for (let n = 0; n < 3; n += 1) await queue.enqueue('email', mail(n));
    for (let n = 0; n < 2; n += 1) await queue.enqueue('email', mail(10 + n), { priority: 5 });
    for (let n = 0; n < 2; n += 1) await queue.enqueue('email', mail(20 + n), { priority: -5 });
    await queue.enqueue('email', mail(30), { priority: 9 });
    // acme's first job carries its turn in pending; the other two wait in acme's list.
    for (let n = 0; n < 3; n += 1) await queue.enqueue('email', mail(40 + n), { group: 'acme' });

    const stats = await queue.stats();
    expect(stats).toMatchObject({ pendingDepth: 4, prioritizedDepth: 5, groupedDepth: 2, waitingDepth: 11 });
    const listed = await pageThrough(queue, 3);
    expect(listed).toHaveLength(11);
    expect(new Set(listed).size).toBe(11);
    // One claim at a time takes them in the same order.
    const claimed: string[] = [];
    for (let n = 0; n < 11; n += 1) claimed.push(...(await queue.claim({ max: 1 })).map((job) => job.id));
    expect(claimed).toEqual(listed);
    expect((await queue.stats()).waitingDepth).toBe(0);
    expect(await queue.list('waiting')).toEqual([]);
    await queue.close();
  });

  test('shows the jobs of a paused kind set aside by a claim, after the ones that can start', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.pause({ kind: 'webhook' });
    const hooks = [await queue.enqueue('webhook', hook(1)), await queue.enqueue('webhook', hook(2))];
    const first = await queue.enqueue('email', mail(1));
    expect((await queue.claim({ max: 1 })).map((job) => job.id)).toEqual([first]);
    const second = await queue.enqueue('email', mail(2));
    expect(await queue.stats()).toMatchObject({ pendingDepth: 1, parkedDepth: 2, waitingDepth: 3 });
    const page = await queue.list('waiting', { limit: 10 });
    expect(page.map((job) => job.id)).toEqual([second, ...hooks]);
    expect(page.map((job) => job.status)).toEqual(['pending', 'pending', 'pending']);
    expect((await queue.list('waiting', { offset: 1, limit: 1 })).map((job) => job.id)).toEqual([hooks[0]]);
    await queue.close();
  });

  test('with more than 10,000 groups waiting, stats leaves the grouped jobs uncounted and the list still pages through them', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    // Each job carries its own group's turn (in pending), so 10,001 groups wait.
    for (let first = 0; first <= 10_000; first += 5_000) {
      const size = Math.min(5_000, 10_001 - first);
      await queue.enqueueMany(Array.from({ length: size }, (_, i) => ({ kind: 'email' as const, payload: mail(first + i), options: { group: `g${first + i}` } })));
    }
    const behind = await queue.enqueue('email', mail(99_999), { group: 'g0' });
    expect(await queue.stats()).toMatchObject({ pendingDepth: 10_001, groupsWaiting: 10_001, groupedDepth: null, waitingDepth: null });
    // The last carrier in pending, then g0's list.
    expect((await queue.list('waiting', { offset: 10_000, limit: 10 })).map((job) => (job.payload as { n: number }).n)).toEqual([10_000, 99_999]);
    expect((await queue.list('waiting', { offset: 10_001, limit: 10 })).map((job) => job.id)).toEqual([behind]);
    await queue.close();
  }, 60_000);

  test('pages a partitioned queue as one list, partition by partition', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 3 });
    const ids: string[] = [];
    for (let n = 0; n < 9; n += 1) ids.push(await queue.enqueue('email', mail(n), { priority: n % 2 === 0 ? 3 : 0 }));
    expect((await queue.stats()).waitingDepth).toBe(9);
    const listed = await pageThrough(queue, 2);
    expect([...listed].sort()).toEqual([...ids].sort());
    await queue.close();
  });
});
