import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, LIST_STATES, Queue, type JobWhy, type ListState, type PayloadTypesOf } from '../src/index.ts';
import { kinds, openQueue } from './fixtures.ts';

type TestQueue = Queue<PayloadTypesOf<typeof kinds>>;

const mail = (n: number) => ({ recipient: 'a@example.com', n });

async function ids(queue: TestQueue, state: ListState, page: { offset?: number; limit?: number } = {}): Promise<string[]> {
  return (await queue.list(state, page)).map((job) => job.id);
}

/** Jobs in every waiting part: two levels above 0 and one below, a paused kind's parked jobs, a group's list. */
async function fill(queue: TestQueue) {
  const pending = await queue.enqueue('email', mail(0));
  const high = [await queue.enqueue('email', mail(1), { priority: 5 }), await queue.enqueue('email', mail(2), { priority: 5 })];
  const top = await queue.enqueue('email', mail(3), { priority: 9 });
  const low = await queue.enqueue('email', mail(4), { priority: -3 });
  await queue.pause({ kind: 'thumbnail' });
  const thumbs = [await queue.enqueue('thumbnail', { image: 'a', width: 1 }), await queue.enqueue('thumbnail', { image: 'b', width: 1 })];
  return { pending, high, top, low, thumbs };
}

describe('list: the parts of waiting on their own', () => {
  test('prioritized pages the levels other than 0 in claim order, with prioritizedDepth', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const { high, top, low } = await fill(queue);
    // The first job of a level can wait in pending as its carrier; a claim files it in its list.
    expect(await ids(queue, 'prioritized')).toEqual(expect.arrayContaining([high[1], low]));
    const prioritized = await ids(queue, 'prioritized');
    const depth = (await queue.stats()).prioritizedDepth;
    expect(prioritized).toHaveLength(depth);
    const order = [top, high[0]!, high[1]!, low].filter((id) => prioritized.includes(id));
    expect(prioritized).toEqual(order);
    expect(await ids(queue, 'prioritized', { offset: 1, limit: 1 })).toEqual([order[1]]);
    expect(await ids(queue, 'prioritized', { offset: depth })).toEqual([]);
    await queue.close();
  });

  test('parked pages the jobs a claim set aside while their kind is paused, with parkedDepth', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const { thumbs } = await fill(queue);
    await queue.claim({ max: 10 });
    expect((await queue.stats()).parkedDepth).toBe(2);
    expect(await ids(queue, 'parked')).toEqual(thumbs);
    expect(await ids(queue, 'parked', { offset: 1 })).toEqual([thumbs[1]]);
    await queue.close();
  });

  test("grouped pages the jobs behind their group's carrier, in the groups' turns, with groupedDepth", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const a = [];
    const b = [];
    for (let n = 0; n < 3; n++) a.push(await queue.enqueue('email', mail(n), { group: 'tenant-a' }));
    for (let n = 0; n < 2; n++) b.push(await queue.enqueue('email', mail(n), { group: 'tenant-b' }));
    const grouped = await ids(queue, 'grouped');
    expect(grouped).toHaveLength((await queue.stats()).groupedDepth!);
    expect(grouped).toEqual([a[1], a[2], b[1]]);
    expect(await ids(queue, 'grouped', { offset: 2, limit: 5 })).toEqual([b[1]]);
    // Every waiting job is in exactly one part: waiting is pending, prioritized, parked and grouped together.
    expect((await ids(queue, 'waiting')).sort()).toEqual([...(await ids(queue, 'pending')), ...grouped].sort());
    await queue.close();
  });

  test('waiting-children pages flow parents, oldest first, with waitingChildrenDepth; a started parent leaves it', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const first = await queue.enqueueFlow({ kind: 'email', payload: mail(0), children: [{ kind: 'email', payload: mail(1) }] });
    const second = await queue.enqueueFlow({ kind: 'email', payload: mail(2), children: [{ kind: 'email', payload: mail(3) }, { kind: 'email', payload: mail(4) }] });
    const third = await queue.enqueueFlow({ kind: 'email', payload: mail(5), children: [{ kind: 'email', payload: mail(6) }] });
    expect(await ids(queue, 'waiting-children')).toEqual([first.id, second.id, third.id]);
    expect((await queue.stats()).waitingChildrenDepth).toBe(3);
    expect(await ids(queue, 'waiting-children', { offset: 1, limit: 1 })).toEqual([second.id]);
    // The first flow's child completes: its parent starts and leaves the list; the third is cancelled.
    const [child] = await queue.claim();
    expect(child?.id).toBe(first.children[0]!.id);
    await queue.complete(child!, null);
    await queue.cancel(third.id);
    expect(await ids(queue, 'waiting-children')).toEqual([second.id]);
    expect((await queue.stats()).waitingChildrenDepth).toBe(1);
    await queue.close();
  });

  test('a parent failed by its child leaves waiting-children', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ kind: 'email', payload: mail(0), children: [{ kind: 'email', payload: mail(1) }] });
    const [child] = await queue.claim();
    await queue.fail(child!, new Error('boom'), { permanent: true });
    expect((await queue.getJob(flow.id))?.status).toBe('failed');
    expect(await ids(queue, 'waiting-children')).toEqual([]);
    await queue.close();
  });

  test('on a partitioned queue each state pages the partitions as one list', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 2 });
    const flows = [];
    for (let n = 0; n < 4; n++) flows.push((await queue.enqueueFlow({ kind: 'email', payload: mail(n), children: [{ kind: 'email', payload: mail(n) }] })).id);
    const listed = await ids(queue, 'waiting-children');
    expect([...listed].sort()).toEqual([...flows].sort());
    expect((await queue.stats()).waitingChildrenDepth).toBe(4);
    expect(await ids(queue, 'waiting-children', { offset: 3 })).toEqual([listed[3]]);
    await queue.close();
  });

  test('every state is listed in LIST_STATES, and an unknown one is refused', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    expect(LIST_STATES).toEqual(expect.arrayContaining(['prioritized', 'grouped', 'parked', 'waiting-children']));
    for (const state of LIST_STATES) expect(await queue.list(state)).toEqual([]);
    await expect(queue.list('children' as ListState)).rejects.toSatisfy((e) => isJobsError(e, 'JOBS_INVALID_ARGUMENT'));
    await queue.close();
  });
});

describe('pause: who paused', () => {
  function pauseReason(answer: JobWhy | null, code: 'queue-paused' | 'kind-paused') {
    return answer?.reasons.find((r) => r.code === code) as { pausedBy?: string } | undefined;
  }

  test('why reports the label a pause gave, for the queue and for a kind; a second pause keeps the first', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail(1));
    await queue.pause({ kind: 'email', by: 'alice@ops-box' });
    expect(pauseReason(await queue.why(id), 'kind-paused')?.pausedBy).toBe('alice@ops-box');
    await queue.pause({ by: 'operator' });
    await queue.pause({ by: 'someone else' });
    expect(pauseReason(await queue.why(id), 'queue-paused')?.pausedBy).toBe('operator');
    await queue.resume();
    await queue.resume({ kind: 'email' });
    // A pause without a label says no one.
    await queue.pause();
    const answer = pauseReason(await queue.why(id), 'queue-paused');
    expect(answer).toBeDefined();
    expect(answer?.pausedBy).toBeUndefined();
    await queue.close();
  });

  test('a bad label is refused and pauses nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    for (const by of ['', 'x'.repeat(65), 'tab\there', 7 as unknown as string]) {
      await expect(queue.pause({ by })).rejects.toSatisfy((e) => isJobsError(e, 'JOBS_INVALID_ARGUMENT') && (e as { field?: string }).field === 'by');
    }
    await expect(queue.pause({ who: 'x' } as never)).rejects.toSatisfy((e) => isJobsError(e, 'JOBS_INVALID_ARGUMENT'));
    expect((await queue.stats()).paused).toBe(false);
    await queue.close();
  });
});
