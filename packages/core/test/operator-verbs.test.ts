import { openRedis, queueKeysIn, redisTest as test, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, Queue, type PayloadTypesOf } from '../src/index.ts';
import { changePriorityScript } from '../src/generated/change-priority.ts';
import { promoteJobScript } from '../src/generated/promote-job.ts';
import { removeScript } from '../src/generated/remove.ts';
import { kinds, openQueue } from './fixtures.ts';

type TestQueue = Queue<PayloadTypesOf<typeof kinds>>;

const mail = (n: number) => ({ recipient: 'a@example.com', n });
const HOUR = 3_600_000;

function logged(redis: TestRedis, queueName: string, options: { partitions?: number } = {}): TestQueue {
  return new Queue({ redis, queue: queueName, kinds, eventLog: true, workerId: 'ops-1', ...options });
}

/** The keys of the queue that name `id` or hold it (lists, sets, strings), but the event log and the removals record. */
async function keysMentioning(redis: TestRedis, queueName: string, id: string): Promise<string[]> {
  const found: string[] = [];
  for (const key of await queueKeysIn(redis, queueName)) {
    if (key.endsWith(':log') || key.endsWith(':removals')) continue;
    if (key.includes(id)) {
      found.push(key);
      continue;
    }
    const type = await redis.type(key);
    const members =
      type === 'list' ? await redis.lrange(key, '0', '-1') : type === 'zset' ? await redis.zrange(key, '0', '-1') : type === 'string' ? [await redis.get(key)] : type === 'hash' ? Object.values(await redis.hgetall(key)) : [];
    if (members.includes(id)) found.push(key);
  }
  return found;
}

/** Sends `script` twice with the same arguments: a call whose reply was lost, resent. */
async function sentTwice(queue: TestQueue, script: typeof promoteJobScript | typeof changePriorityScript | typeof removeScript, argv: string[]): Promise<unknown[]> {
  const ctx = queue.partitions[0]!.ctx;
  const first = await ctx.scripts.run(script as typeof promoteJobScript, argv);
  const second = await ctx.scripts.run(script as typeof promoteJobScript, argv);
  return [first, second];
}

describe('promote', () => {
  test('a delayed job starts now: it leaves the delayed set for pending, is claimed next and is logged promoted', async ({ redis, queueName }) => {
    const queue = logged(redis, queueName);
    const id = await queue.enqueue('email', mail(1), { delayMs: HOUR });
    expect(await queue.promote(id)).toEqual({ promoted: true });
    expect((await queue.stats()).delayedDepth).toBe(0);
    expect((await queue.getJob(id))?.status).toBe('pending');
    const [job] = await queue.claim();
    expect(job?.id).toBe(id);
    expect((await queue.timeline(id))?.events.map((e) => e.event)).toContain('promoted');
    await queue.close();
  });

  test('refuses a job that is not delayed with its status, and an unknown id with not_found, changing nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const pending = await queue.enqueue('email', mail(1));
    expect(await queue.promote(pending)).toEqual({ promoted: false, status: 'pending' });
    await queue.claim();
    expect(await queue.promote(pending)).toEqual({ promoted: false, status: 'processing' });
    expect(await queue.promote('nope-1')).toEqual({ promoted: false, status: 'not_found' });
    await expect(queue.promote('bad id')).rejects.toSatisfy((e) => isJobsError(e, 'JOBS_INVALID_ARGUMENT'));
    await queue.close();
  });

  test('a promoted job of a paused kind is parked by the claim that meets it, not started', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail(1), { delayMs: HOUR });
    await queue.pause({ kind: 'email' });
    expect(await queue.promote(id)).toEqual({ promoted: true });
    expect(await queue.claim({ max: 5 })).toEqual([]);
    expect((await queue.stats()).parkedDepth).toBe(1);
    await queue.resume({ kind: 'email' });
    expect((await queue.claim())[0]?.id).toBe(id);
    await queue.close();
  });

  test("a promoted job of a group waits for its group's turn: the group's running job holds its one slot", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ groups: { concurrency: 1 } });
    const first = await queue.enqueue('email', mail(1), { group: 'tenant-a' });
    const later = await queue.enqueue('email', mail(2), { group: 'tenant-a', delayMs: HOUR });
    const [running] = await queue.claim();
    expect(running?.id).toBe(first);
    expect(await queue.promote(later)).toEqual({ promoted: true });
    expect(await queue.claim({ max: 5 })).toEqual([]);
    await queue.complete(running!, null);
    expect((await queue.claim())[0]?.id).toBe(later);
    await queue.close();
  });

  test('sent again after its reply was lost, it answers promoted again and lists the job once', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail(1), { delayMs: HOUR });
    const k = queue.partitions[0]!.ctx.keys;
    const argv = promoteJobScript.argv({ job: k.job(id), delayed: k.delayed, pending: k.pending, log: k.log }, { id, prefix: k.prefix, jobPrefix: k.jobPrefix, logMaxLen: '0', worker: '', request: 'req-1' });
    expect(await sentTwice(queue, promoteJobScript, argv)).toEqual([[1], [1]]);
    expect(await redis.lrange(k.pending, 0, -1)).toEqual([id]);
    // Another call (another request id) hears the truth.
    expect(await queue.promote(id)).toEqual({ promoted: false, status: 'pending' });
    await queue.close();
  });

  test('on a partitioned queue it finds the job by its id', async ({ redis, queueName }) => {
    const queue = logged(redis, queueName, { partitions: 3 });
    const ids = await Promise.all([1, 2, 3, 4].map((n) => queue.enqueue('email', mail(n), { delayMs: HOUR })));
    for (const id of ids) expect(await queue.promote(id)).toEqual({ promoted: true });
    expect((await queue.stats()).pendingDepth).toBe(4);
    await queue.close();
  });
});

describe('changePriority', () => {
  test('a pending job moved to a higher priority is claimed first, and back to 0 goes to the back of pending', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ids = [];
    for (let n = 0; n < 3; n++) ids.push(await queue.enqueue('email', mail(n)));
    expect(await queue.changePriority(ids[2]!, 5)).toEqual({ changed: true, priority: 5 });
    expect((await queue.getJob(ids[2]!))?.fields.priority).toBe('5');
    expect((await queue.list('waiting')).map((j) => j.id)).toEqual([ids[2], ids[0], ids[1]]);
    expect(await queue.changePriority(ids[2]!, 0)).toEqual({ changed: true, priority: 0 });
    expect((await queue.list('waiting')).map((j) => j.id)).toEqual([ids[0], ids[1], ids[2]]);
    expect(await queue.changePriority(ids[0]!, -2)).toEqual({ changed: true, priority: -2 });
    expect((await queue.list('waiting')).map((j) => j.id)).toEqual([ids[1], ids[2], ids[0]]);
    const claimed = await queue.claim({ max: 3 });
    expect(claimed.map((j) => j.id)).toEqual([ids[1], ids[2], ids[0]]);
    expect((await queue.stats()).prioritizedDepth).toBe(0);
    await queue.close();
  });

  test('a delayed job keeps its place and goes to its new level when due', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const early = await queue.enqueue('email', mail(1));
    const delayed = await queue.enqueue('email', mail(2), { delayMs: HOUR });
    expect(await queue.changePriority(delayed, 9)).toEqual({ changed: true, priority: 9 });
    expect((await queue.stats()).delayedDepth).toBe(1);
    await queue.promote(delayed);
    expect((await queue.claim())[0]?.id).toBe(delayed);
    expect((await queue.claim())[0]?.id).toBe(early);
    await queue.close();
  });

  test('refuses a running or finished job with its status, and a bad priority, writing nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail(1));
    const [job] = await queue.claim();
    expect(await queue.changePriority(id, 3)).toEqual({ changed: false, status: 'processing' });
    await queue.complete(job!, null);
    expect(await queue.changePriority(id, 3)).toEqual({ changed: false, status: 'completed' });
    expect(await queue.changePriority('nope-1', 3)).toEqual({ changed: false, status: 'not_found' });
    const waiting = await queue.enqueue('email', mail(2));
    const before = await redis.hgetall(queue.partitions[0]!.ctx.keys.job(waiting));
    for (const bad of [1001, -1001, 1.5, Number.NaN, '3' as unknown as number]) {
      await expect(queue.changePriority(waiting, bad)).rejects.toSatisfy((e) => isJobsError(e, 'JOBS_INVALID_ARGUMENT') && (e as { field?: string }).field === 'priority');
    }
    expect(await redis.hgetall(queue.partitions[0]!.ctx.keys.job(waiting))).toEqual(before);
    await queue.close();
  });

  test('sent again after its reply was lost, it answers changed again and lists the job once', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', mail(0));
    const id = await queue.enqueue('email', mail(1));
    const k = queue.partitions[0]!.ctx.keys;
    const argv = changePriorityScript.argv({ job: k.job(id), pending: k.pending, log: k.log }, { id, priority: 4, prefix: k.prefix, jobPrefix: k.jobPrefix, logMaxLen: '0', worker: '', request: 'req-1' });
    expect(await sentTwice(queue, changePriorityScript, argv)).toEqual([[1], [1]]);
    const waiting = (await queue.list('waiting')).map((j) => j.id);
    expect(waiting.filter((w) => w === id)).toHaveLength(1);
    expect(waiting[0]).toBe(id);
    await queue.close();
  });
});

describe('remove', () => {
  test('removes a job from each state that is not running, leaving no key of it', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const pending = await queue.enqueue('email', mail(1));
    const prioritized = await queue.enqueue('email', mail(2), { priority: 3 });
    const delayed = await queue.enqueue('email', mail(3), { delayMs: HOUR });
    const grouped = [await queue.enqueue('email', mail(4), { group: 'g' }), await queue.enqueue('email', mail(5), { group: 'g' })];
    const done = await queue.enqueue('webhook', { url: 'https://example.com/a' });
    const dead = await queue.enqueue('webhook', { url: 'https://example.com/b' });
    const cancelled = await queue.enqueue('email', mail(6), { delayMs: HOUR });
    await queue.cancel(cancelled);
    const claimed = await queue.claim({ max: 10 });
    for (const job of claimed) {
      if (job.id === done) await queue.complete(job, { ok: true });
      else if (job.id === dead) await queue.fail(job, new Error('boom'), { permanent: true });
      else await queue.release([job]);
    }
    const states = { pending, prioritized, delayed, grouped: grouped[1]!, completed: done, failed: dead, cancelled };
    for (const [state, id] of Object.entries(states)) {
      expect(await queue.remove(id), state).toEqual({ removed: true });
      expect(await keysMentioning(redis, queueName, id), state).toEqual([]);
      expect(await queue.getJob(id)).toBeNull();
      expect(await queue.remove(id)).toEqual({ removed: false, status: 'not_found' });
    }
    const stats = await queue.stats();
    expect(stats.removedTotal).toBe(7);
    expect({ completed: stats.completedDepth, failed: stats.failedDepth, delayed: stats.delayedDepth, prioritized: stats.prioritizedDepth }).toEqual({ completed: 0, failed: 0, delayed: 0, prioritized: 0 });
    // What is left runs: the group's first job.
    expect((await queue.list('waiting')).map((j) => j.id)).toEqual([grouped[0]]);
    await queue.close();
  });

  test('a parked job is removed from its kind’s parked list', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail(1));
    await queue.pause({ kind: 'email' });
    await queue.claim();
    expect((await queue.stats()).parkedDepth).toBe(1);
    expect(await queue.remove(id)).toEqual({ removed: true });
    expect(await keysMentioning(redis, queueName, id)).toEqual([]);
    expect((await queue.stats()).parkedDepth).toBe(0);
    await queue.close();
  });

  test('publishes {"id","status":"removed"} on the events channel, so a caller waiting for the job hears it is gone', async ({ redis, redisUrl, queueName }) => {
    const subscriber = openRedis(redisUrl);
    const messages: string[] = [];
    subscriber.on('message', (_channel: string, message: string) => messages.push(message));
    await subscriber.subscribe(`queue:{${queueName}}:events`);
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail(1));
    expect(await queue.remove(id)).toEqual({ removed: true });
    await expect.poll(() => messages.map((m) => JSON.parse(m) as unknown)).toContainEqual({ id, status: 'removed' });
    subscriber.disconnect();
    await queue.close();
  });

  test('a running job answers processing and stays', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', mail(1));
    const [job] = await queue.claim();
    expect(await queue.remove(id)).toEqual({ removed: false, status: 'processing' });
    await queue.complete(job!, null);
    expect(await queue.remove(id)).toEqual({ removed: true });
    await queue.close();
  });

  test('releases the idempotency key the job holds: the same key enqueues a new job', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const first = await queue.enqueue('email', mail(1), { idempotencyKey: 'order-7' });
    expect(await queue.enqueue('email', mail(1), { idempotencyKey: 'order-7' })).toBe(first);
    expect(await queue.remove(first)).toEqual({ removed: true });
    expect(await keysMentioning(redis, queueName, first)).toEqual([]);
    const second = await queue.enqueue('email', mail(1), { idempotencyKey: 'order-7' });
    expect(second).not.toBe(first);
    await queue.close();
  });

  test('a key taken over by a later job is not released by removing the earlier one', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const first = await queue.enqueue('email', mail(1), { idempotencyKey: 'order-8', idempotencyTtlMs: 60_000 });
    const k = queue.partitions[0]!.ctx.keys;
    await redis.set(k.idempotency('order-8'), 'someone-else', 'PX', 60_000);
    expect(await queue.remove(first)).toEqual({ removed: true });
    expect(await redis.get(k.idempotency('order-8'))).toBe('someone-else');
    await queue.close();
  });

  test('logs removed, and sent again after its reply was lost answers removed again', async ({ redis, queueName }) => {
    const queue = logged(redis, queueName);
    const id = await queue.enqueue('email', mail(1));
    const ctx = queue.partitions[0]!.ctx;
    const k = ctx.keys;
    const argv = removeScript.argv(
      { job: k.job(id), pending: k.pending, delayed: k.delayed, completed: k.completed, failed: k.failed, stats: k.stats, log: k.log, removals: k.removals },
      { id, prefix: k.prefix, jobPrefix: k.jobPrefix, logMaxLen: ctx.logMaxLen, worker: 'ops-1', request: 'req-1', ttlSeconds: 0, channel: '', failedTtlSeconds: 0, historyCap: -1, wakeChannel: k.wake },
    );
    expect(await sentTwice(queue, removeScript, argv)).toEqual([[1], [1]]);
    expect(await queue.remove(id)).toEqual({ removed: false, status: 'not_found' });
    const entries = await redis.xrange(k.log, '-', '+');
    const removed = entries.filter(([, fields]) => fields[1] === id && fields[3] === 'removed');
    expect(removed).toHaveLength(1);
    expect(await redis.pttl(k.removals)).toBeGreaterThan(0);
    await queue.close();
  });

  test("removing a child its parent waits for fails the parent (onChildFailure 'fail'), or settles it ('ignore')", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const strict = await queue.enqueueFlow({ kind: 'email', payload: mail(0), children: [{ kind: 'email', payload: mail(1) }] });
    expect(await queue.remove(strict.children[0]!.id)).toEqual({ removed: true });
    const parent = await queue.getJob(strict.id);
    expect(parent?.status).toBe('failed');
    expect(parent?.lastError).toContain('JOBS_CHILD_FAILED');
    const lenient = await queue.enqueueFlow({ kind: 'email', payload: mail(0), options: { onChildFailure: 'ignore' }, children: [{ kind: 'email', payload: mail(1) }] });
    expect(await queue.remove(lenient.children[0]!.id)).toEqual({ removed: true });
    expect((await queue.getJob(lenient.id))?.status).toBe('pending');
    await queue.close();
  });

  test('removing a parent waiting for its children cancels its unstarted children, and a settled child keeps its entry', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ kind: 'email', payload: mail(0), children: [{ kind: 'email', payload: mail(1) }, { kind: 'email', payload: mail(2) }] });
    const [first] = await queue.claim();
    await queue.complete(first!, { sent: 1 });
    expect(await queue.remove(first!.id)).toEqual({ removed: true });
    expect((await queue.children(flow.id))[first!.id]).toMatchObject({ status: 'completed', result: { sent: 1 } });
    expect(await queue.remove(flow.id)).toEqual({ removed: true });
    const other = flow.children.find((c) => c.id !== first!.id)!.id;
    expect((await queue.getJob(other))?.status).toBe('cancelled');
    expect(await queue.claim({ max: 5 })).toEqual([]);
    // The cancelled child still names its parent (parent_id), until its hash expires: nothing else does.
    expect(await keysMentioning(redis, queueName, flow.id)).toEqual([queue.partitions[0]!.ctx.keys.job(other)]);
    await queue.close();
  });

  test('on a partitioned queue it finds the job by its id', async ({ redis, queueName }) => {
    const queue = logged(redis, queueName, { partitions: 3 });
    const ids = await Promise.all([1, 2, 3].map((n) => queue.enqueue('email', mail(n))));
    for (const id of ids) expect(await queue.remove(id)).toEqual({ removed: true });
    expect((await queue.stats()).pendingDepth).toBe(0);
    await queue.close();
  });
});
