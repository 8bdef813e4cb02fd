import { queueKeysIn, redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, Queue, type ClaimedJob, type FlowResult } from '../src/index.ts';
import { kinds, openQueue } from './fixtures.ts';

type TestQueue = ReturnType<typeof openQueue>;

/** Claims until `ids` are all claimed (and nothing else is), in any order. */
async function claimIds(queue: TestQueue, ids: readonly string[]): Promise<Map<string, ClaimedJob>> {
  const claimed = await queue.claim({ max: ids.length + 5 });
  expect(claimed.map((job) => job.id).sort()).toEqual([...ids].sort());
  return new Map(claimed.map((job) => [job.id, job]));
}

const email = (n: number) => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', n } });
const thumb = (image: string) => ({ kind: 'thumbnail' as const, payload: { image, width: 64 } });

describe('enqueueFlow', () => {
  test('the parent runs only once every child completed, and reads their results by id with their kind', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), children: [thumb('a.png'), thumb('b.png'), email(1)] });
    const [a, b, c] = flow.children.map((child) => child.id) as [string, string, string];
    expect((await queue.getJob(flow.id))?.status).toBe('waiting-children');
    expect(await redis.lrange(`queue:{${queueName}}:pending`, 0, -1)).not.toContain(flow.id);
    const jobs = await claimIds(queue, [a, b, c]);
    await queue.complete(jobs.get(a) as ClaimedJob, { url: 'a' });
    await queue.complete(jobs.get(b) as ClaimedJob, { url: 'b' });
    expect(await queue.claim()).toEqual([]);
    expect((await queue.children(flow.id))[c]).toEqual({ status: 'waiting', kind: 'email' });
    await queue.complete(jobs.get(c) as ClaimedJob, 'sent');
    const [parent] = (await queue.claim()) as [ClaimedJob];
    expect(parent.id).toBe(flow.id);
    expect(await queue.children(flow.id)).toEqual({
      [a]: { status: 'completed', kind: 'thumbnail', result: { url: 'a' } },
      [b]: { status: 'completed', kind: 'thumbnail', result: { url: 'b' } },
      [c]: { status: 'completed', kind: 'email', result: 'sent' },
    });
    await queue.complete(parent, 'zipped');
    expect((await queue.getJob(flow.id))?.status).toBe('completed');
    expect((await queue.stats()).enqueuedTotal).toBe(4);
    await queue.close();
  });

  test('nests three levels: each parent starts when its own children are done, claimed by the call that completes its last child', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), children: [{ ...email(1), children: [thumb('x'), { ...email(2), children: [thumb('y')] }] }, thumb('z')] });
    const [mid, zNode] = flow.children as [FlowResult, FlowResult];
    const [xNode, deep] = mid.children as [FlowResult, FlowResult];
    const y = (deep.children[0] as FlowResult).id;
    const first = await claimIds(queue, [xNode.id, y, zNode.id]);
    await queue.complete(first.get(y) as ClaimedJob, 'y');
    await queue.complete(first.get(zNode.id) as ClaimedJob, 'z');
    const [deepJob] = (await queue.claim()) as [ClaimedJob];
    expect(deepJob.id).toBe(deep.id);
    expect(await queue.children(deep.id)).toEqual({ [y]: { status: 'completed', kind: 'thumbnail', result: 'y' } });
    await queue.complete(deepJob, 'deep');
    const last = await queue.completeAndClaim(first.get(xNode.id) as ClaimedJob, 'x', { max: 4 });
    expect(last.completed).toBe(true);
    expect(last.next.map((job) => job.id)).toEqual([mid.id]);
    expect(await queue.claim()).toEqual([]);
    const root = await queue.completeAndClaim(last.next[0] as ClaimedJob, 'mid', { max: 4 });
    expect(root.next.map((job) => job.id)).toEqual([flow.id]);
    expect(await queue.children(flow.id)).toEqual({
      [mid.id]: { status: 'completed', kind: 'email', result: 'mid' },
      [zNode.id]: { status: 'completed', kind: 'thumbnail', result: 'z' },
    });
    await queue.close();
  });

  test('checks every job before writing: an unknown kind or an invalid child payload is a typed error naming it, and nothing is written', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const unknown = await queue.enqueueFlow({ ...email(0), children: [thumb('a'), { kind: 'nope', payload: {} } as never] }).catch((e: unknown) => e);
    expect(isJobsError(unknown, 'JOBS_UNKNOWN_KIND')).toBe(true);
    const invalid = await queue.enqueueFlow({ ...email(0), children: [{ ...email(1), children: [{ kind: 'thumbnail', payload: { image: 'a', width: 0 } }] }] }).catch((e: unknown) => e);
    expect(isJobsError(invalid, 'JOBS_VALIDATION')).toBe(true);
    expect((invalid as { field?: string }).field).toBe('flow.children[0].children[0].payload');
    const policy = await queue.enqueueFlow({ ...email(0), options: { onChildFailure: 'retry' as never }, children: [thumb('a')] }).catch((e: unknown) => e);
    expect(isJobsError(policy, 'JOBS_INVALID_ARGUMENT')).toBe(true);
    const idem = await queue.enqueueFlow({ ...email(0), children: [{ ...thumb('a'), options: { idempotencyKey: 'k' } as never }] }).catch((e: unknown) => e);
    expect(isJobsError(idem, 'JOBS_INVALID_ARGUMENT')).toBe(true);
    expect((idem as { field?: string }).field).toBe('flow.children[0].options.idempotencyKey');
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
    await queue.close();
  });

  test('a child dead-lettered fails its parent with JOBS_CHILD_FAILED naming the child, and the failure goes up the tree', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), children: [{ ...email(1), children: [thumb('bad'), thumb('ok')] }, thumb('other')] });
    const [mid, other] = flow.children as [FlowResult, FlowResult];
    const [bad, ok] = mid.children as [FlowResult, FlowResult];
    const jobs = await claimIds(queue, [bad.id, ok.id, other.id]);
    await queue.fail(jobs.get(bad.id) as ClaimedJob, new Error('corrupt image'), { permanent: true });
    const midJob = await queue.getJob(mid.id);
    expect(midJob?.status).toBe('failed');
    expect(midJob?.lastError).toBe(`JOBS_CHILD_FAILED: child ${bad.id} (thumbnail) failed: corrupt image`);
    const root = await queue.getJob(flow.id);
    expect(root?.status).toBe('failed');
    expect(root?.lastError).toContain(`child ${mid.id} (email) failed: JOBS_CHILD_FAILED: child ${bad.id}`);
    expect(await redis.lrange(`queue:{${queueName}}:failed`, 0, -1)).toEqual(expect.arrayContaining([bad.id, mid.id, flow.id]));
    // The siblings still finish; their results are recorded, and nothing starts the failed parents.
    await queue.complete(jobs.get(ok.id) as ClaimedJob, 1);
    await queue.complete(jobs.get(other.id) as ClaimedJob, 2);
    expect(await queue.claim({ max: 5 })).toEqual([]);
    expect((await queue.children(flow.id))[other.id]).toEqual({ status: 'completed', kind: 'thumbnail', result: 2 });
    expect((await queue.stats()).failedTotal).toBe(3);
    await queue.close();
  });

  test("onChildFailure 'ignore': a failed child counts as settled, its error in the parent's results", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), options: { onChildFailure: 'ignore' }, children: [thumb('bad'), thumb('ok')] });
    const [bad, ok] = flow.children as [FlowResult, FlowResult];
    const jobs = await claimIds(queue, [bad.id, ok.id]);
    await queue.fail(jobs.get(bad.id) as ClaimedJob, new Error('corrupt'), { permanent: true });
    await queue.complete(jobs.get(ok.id) as ClaimedJob, 'fine');
    const [parent] = (await queue.claim()) as [ClaimedJob];
    expect(parent.id).toBe(flow.id);
    const children = await queue.children(flow.id);
    expect(children[bad.id]).toMatchObject({ status: 'failed', kind: 'thumbnail' });
    expect((children[bad.id] as { error: string }).error).toContain('corrupt');
    expect(children[ok.id]).toEqual({ status: 'completed', kind: 'thumbnail', result: 'fine' });
    await queue.close();
  });

  test('a retried child does not settle its parent; a lease that expires on its last attempt fails the parent', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), children: [{ ...thumb('a'), options: { maxAttempts: 2, visibilityMs: 30 } }] });
    const child = (flow.children[0] as FlowResult).id;
    const [first] = (await queue.claim()) as [ClaimedJob];
    expect(await queue.fail(first, 'flaky', { retryDelayMs: 0 })).toBe('retried');
    expect((await queue.getJob(flow.id))?.status).toBe('waiting-children');
    const [second] = (await queue.claim()) as [ClaimedJob];
    expect(second.id).toBe(child);
    // The worker dies: the lease runs out on the last attempt and the sweep dead-letters it.
    await waitFor(async () => (await queue.reclaimStuck()).deadLettered.includes(child), { what: 'the child dead-lettered by the sweep' });
    const parent = await queue.getJob(flow.id);
    expect(parent?.status).toBe('failed');
    expect(parent?.lastError).toContain(`JOBS_CHILD_FAILED: child ${child} (thumbnail) failed: lease expired`);
    await queue.close();
  });

  test('a child with a delay runs after it; a parent with a delay still waiting for it goes to the delayed set when its children are done', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), options: { delayMs: 60_000 }, children: [thumb('a')] });
    const [child] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(child, 1);
    expect((await queue.getJob(flow.id))?.status).toBe('delayed');
    expect(await redis.zscore(`queue:{${queueName}}:delayed`, flow.id)).not.toBeNull();
    expect(await queue.claim()).toEqual([]);
    await queue.close();
  });
});

describe('flows with admission (priorities, pauses, limits)', () => {
  test('a child that expires before it starts fails its parent; under ignore, the claim that expires it starts the parent', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const failing = await queue.enqueueFlow({ ...email(0), children: [{ ...thumb('a'), options: { ttlMs: 1 } }] });
    const ignoring = await queue.enqueueFlow({ ...email(1), options: { onChildFailure: 'ignore' }, children: [{ ...thumb('b'), options: { ttlMs: 1 } }] });
    // Both children's expiry passes on the Redis clock before anything claims.
    const expiry = Number(await redis.hget(`queue:{${queueName}}:job:${(ignoring.children[0] as FlowResult).id}`, 'expires_at_ms'));
    await waitFor(async () => {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) > expiry;
    }, { what: 'the children expired' });
    const [parent] = await waitFor(async () => {
      const claimed = await queue.claim({ max: 5 });
      return claimed.length > 0 && claimed;
    }, { what: 'the expired children dead-lettered and the ignoring parent claimed' });
    expect(parent?.id).toBe(ignoring.id);
    const failed = await queue.getJob(failing.id);
    expect(failed?.status).toBe('failed');
    expect(failed?.lastError).toMatch(/^JOBS_CHILD_FAILED: child \S+ \(thumbnail\) failed: JOBS_EXPIRED/);
    expect(Object.values(await queue.children(ignoring.id))[0]).toMatchObject({ status: 'failed', kind: 'thumbnail' });
    await queue.close();
  });

  test('a parent with a priority starts ahead of lower-priority work once its children are done', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), options: { priority: 10 }, children: [thumb('a')] });
    const [child] = (await queue.claim()) as [ClaimedJob];
    for (let n = 1; n <= 3; n += 1) await queue.enqueue('email', { recipient: 'a@example.com', n });
    await queue.complete(child, 1);
    const [first] = (await queue.claim()) as [ClaimedJob];
    expect(first.id).toBe(flow.id);
    await queue.close();
  });
});

describe('cancelling a flow', () => {
  test('cancelling the parent cancels its unstarted children down the tree; a running child finishes and starts nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), children: [thumb('running'), { ...email(1), children: [thumb('a'), { ...thumb('later'), options: { delayMs: 60_000 } }] }] });
    const [running, mid] = flow.children as [FlowResult, FlowResult];
    const [a, later] = mid.children as [FlowResult, FlowResult];
    const [job] = (await queue.claim()) as [ClaimedJob];
    expect(job.id).toBe(running.id);
    expect(await queue.cancel(flow.id)).toEqual({ cancelled: true, wasRunning: false });
    for (const id of [flow.id, mid.id, a.id, later.id]) expect((await queue.getJob(id))?.status, id).toBe('cancelled');
    expect(await redis.llen(`queue:{${queueName}}:pending`)).toBe(0);
    expect(await redis.zcard(`queue:{${queueName}}:delayed`)).toBe(0);
    expect((await queue.stats()).cancelledTotal).toBe(4);
    expect((await queue.children(flow.id))[mid.id]).toMatchObject({ status: 'cancelled', kind: 'email' });
    await queue.complete(job, 'done');
    expect((await queue.getJob(flow.id))?.status).toBe('cancelled');
    expect((await queue.children(flow.id))[running.id]).toEqual({ status: 'completed', kind: 'thumbnail', result: 'done' });
    expect(await queue.claim({ max: 5 })).toEqual([]);
    await queue.close();
  });

  test('cancelling the parent takes its children out of a priority list, a group list and a parked list; none of them runs after resume', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const key = (suffix: string) => `queue:{${queueName}}:${suffix}`;
    await queue.pause({ kind: 'thumbnail' });
    const flow = await queue.enqueueFlow({
      ...email(0),
      children: [
        { ...thumb('parked'), options: { group: 'pics' } },
        { ...email(1), options: { priority: -5 } },
        { ...email(2), options: { group: 'acme' } },
        { ...email(3), options: { group: 'acme' } },
      ],
    });
    const [parked, low, carrier, grouped] = flow.children.map((child) => child.id) as [string, string, string, string];
    // The claim parks the paused kind's child (the oldest in pending) and starts acme's carrier;
    // the rest wait in their lists, but for the low one: pending ran empty, so it waits there as
    // a carrier (what a wait for work sees).
    const [running] = (await queue.claim({ max: 1 })) as [ClaimedJob];
    expect(running.id).toBe(carrier);
    expect(await redis.lrange(key('parked:thumbnail'), 0, -1)).toEqual([parked]);
    expect(await redis.lrange(key('pending'), 0, -1)).toEqual([low]);
    expect(await redis.lrange(key('group:acme'), 0, -1)).toEqual([grouped]);
    expect(await queue.cancel(flow.id)).toEqual({ cancelled: true, wasRunning: false });
    for (const id of [flow.id, parked, low, grouped]) expect((await queue.getJob(id))?.status, id).toBe('cancelled');
    expect((await queue.stats()).cancelledTotal).toBe(4);
    for (const list of ['pending', 'parked:thumbnail', 'priority:-5', 'group:acme']) expect(await redis.llen(key(list)), list).toBe(0);
    expect(await redis.zscore(key('priorities'), '-5')).toBeNull();
    expect(await redis.zscore(key('groups'), 'acme')).toBeNull();
    await queue.resume({ kind: 'thumbnail' });
    await queue.complete(running, 'sent');
    expect(await queue.claim({ max: 10 })).toEqual([]);
    for (const id of [parked, low, grouped]) expect((await queue.getJob(id))?.status, id).toBe('cancelled');
    await queue.close();
  });

  test("cancelling the parent of a group's waiting carrier hands the group's turn on: the group's next job runs at once", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), children: [1, 2].map((n) => ({ ...email(n), options: { group: 'acme' } })) });
    expect(await queue.cancel(flow.id)).toEqual({ cancelled: true, wasRunning: false });
    for (const child of flow.children) expect((await queue.getJob(child.id))?.status).toBe('cancelled');
    expect(await redis.llen(`queue:{${queueName}}:pending`)).toBe(0);
    expect(await redis.llen(`queue:{${queueName}}:group:acme`)).toBe(0);
    const next = await queue.enqueue('email', { recipient: 'a@example.com', n: 3 }, { group: 'acme' });
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([next]);
    await queue.close();
  });

  test("cancelling a child fails its parent by default, and settles it under 'ignore'", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const failing = await queue.enqueueFlow({ ...email(0), children: [thumb('a')] });
    const ignoring = await queue.enqueueFlow({ ...email(1), options: { onChildFailure: 'ignore' }, children: [thumb('b')] });
    expect(await queue.cancel((failing.children[0] as FlowResult).id)).toEqual({ cancelled: true, wasRunning: false });
    const parent = await queue.getJob(failing.id);
    expect(parent?.status).toBe('failed');
    expect(parent?.lastError).toMatch(/^JOBS_CHILD_FAILED: child \S+ \(thumbnail\) cancelled/);
    expect(await queue.cancel((ignoring.children[0] as FlowResult).id)).toEqual({ cancelled: true, wasRunning: false });
    const [next] = (await queue.claim()) as [ClaimedJob];
    expect(next.id).toBe(ignoring.id);
    await queue.close();
  });
});

describe('redriving a flow', () => {
  test('a failed child redriven after its parent failed runs and is recorded, but the parent stays failed; redriving the parent runs it once with the results as they are', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ ...email(0), children: [thumb('a'), thumb('b')] });
    const [a, b] = flow.children.map((child) => child.id) as [string, string];
    const jobs = await claimIds(queue, [a, b]);
    await queue.fail(jobs.get(a) as ClaimedJob, 'broken', { permanent: true });
    await queue.complete(jobs.get(b) as ClaimedJob, 'b');
    expect((await queue.getJob(flow.id))?.status).toBe('failed');
    expect(await queue.retry([a])).toEqual([true]);
    const [again] = (await queue.claim()) as [ClaimedJob];
    expect(again.id).toBe(a);
    await queue.complete(again, 'a, at last');
    expect((await queue.getJob(flow.id))?.status).toBe('failed');
    expect(await queue.claim()).toEqual([]);
    expect(await queue.children(flow.id)).toEqual({
      [a]: { status: 'completed', kind: 'thumbnail', result: 'a, at last' },
      [b]: { status: 'completed', kind: 'thumbnail', result: 'b' },
    });
    expect(await queue.retry([flow.id])).toEqual([true]);
    const [parent] = (await queue.claim()) as [ClaimedJob];
    expect(parent.id).toBe(flow.id);
    await queue.complete(parent, 'zipped');
    expect((await queue.getJob(flow.id))?.status).toBe('completed');
    await queue.close();
  });
});

describe('flows on a partitioned queue', () => {
  test('a whole flow goes to one partition, and its parent reads its children there', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 3 });
    const flow = await queue.enqueueFlow({ ...email(0), children: [thumb('a'), thumb('b')] });
    const partition = queue.partitionOf(flow.id)!;
    for (const child of flow.children) expect(queue.partitionOf(child.id)).toBe(partition);
    const claimed = await partition.claim({ max: 5 });
    expect(claimed).toHaveLength(2);
    for (const job of claimed) await queue.complete(job, job.id);
    const [parent] = (await partition.claim()) as [ClaimedJob];
    expect(parent.id).toBe(flow.id);
    expect(Object.keys(await queue.children(flow.id)).sort()).toEqual(flow.children.map((child) => child.id).sort());
    await queue.close();
  });
});
