import { deleteQueueKeys, onEveryNode, redisNodes, redisTest as test, scriptsMode, urlWithUser, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { Queue, type ClaimedJob, type PayloadTypesOf } from '../src/index.ts';
import { addHistory, HISTORY_FIELD, METRICS_SLOT_FIELDS } from '../src/internal.ts';
import { kinds } from './fixtures.ts';

type TestQueue = Queue<PayloadTypesOf<typeof kinds>>;

/** FUNCTION FLUSH wherever the queue's scripts run: the next call loads a fresh library. */
async function flushFunctions(redis: TestRedis): Promise<void> {
  for (const node of await redisNodes(redis)) await node.call('FUNCTION', 'FLUSH');
}

/**
 * Two jobs of a capped kind (one at a time) in a group (one at a time): the first claimed, holding
 * both running slots, the second held back.
 */
async function holdSlots(queue: TestQueue): Promise<{ held: ClaimedJob; waiting: string }> {
  await queue.setLimits({ kinds: { email: { concurrency: 1 } }, groups: { concurrency: 1 } });
  const first = await queue.enqueue('email', { recipient: 'a@example.com' }, { group: 'acme' });
  const waiting = await queue.enqueue('email', { recipient: 'b@example.com' }, { group: 'acme' });
  const claimed = await queue.claim({ max: 10 });
  expect(claimed.map((job) => job.id)).toEqual([first]);
  return { held: claimed[0] as ClaimedJob, waiting };
}

/** Nothing waits anywhere a claim would not find it, and nothing is in processing but `running`. */
async function expectAccounted(queue: TestQueue, running: readonly string[]): Promise<void> {
  const stats = await queue.stats();
  expect(stats.processingDepth).toBe(running.length);
  for (const id of running) expect((await queue.getJob(id))?.status).toBe('processing');
}

/**
 * Each verb that gives a running slot back (complete, fail, release, reclaim), run as the first
 * call after `fresh()`: it completes its work and hands the slot on, with nothing left halfway.
 */
async function slotVerbs(open: (suffix: string) => TestQueue, fresh: () => Promise<void>): Promise<void> {
  {
    const queue = open('complete');
    const { held, waiting } = await holdSlots(queue);
    await fresh();
    await queue.complete(held, 'ok');
    expect((await queue.getJob(held.id))?.status).toBe('completed');
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([waiting]);
    await expectAccounted(queue, [waiting]);
    expect((await queue.stats()).completedTotal).toBe(1);
    await queue.close();
  }
  {
    const queue = open('fail');
    const { held, waiting } = await holdSlots(queue);
    await fresh();
    expect(await queue.fail(held, new Error('boom'))).not.toBe('not-owner');
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([waiting]);
    await expectAccounted(queue, [waiting]);
    await queue.close();
  }
  {
    const queue = open('release');
    const { held } = await holdSlots(queue);
    await fresh();
    expect(await queue.release([held])).toEqual([true]);
    // Back first in its group: it runs again before the group's next job.
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([held.id]);
    await expectAccounted(queue, [held.id]);
    await queue.close();
  }
  {
    const queue = open('reclaim');
    const { held } = await holdSlots(queue);
    // Its worker died: the lease ran out.
    await queue.client.zadd(queue.keys.leases, '1', held.id);
    await queue.client.hset(queue.keys.job(held.id), 'lease_expires_at_ms', '1');
    await fresh();
    expect((await queue.reclaimStuck()).reclaimed).toEqual([held.id]);
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([held.id]);
    await expectAccounted(queue, [held.id]);
    await queue.close();
  }
}

/** Each verb that moves parked jobs back (resume, setLimits, unparkFreed): every job then runs. */
async function unparkVerbs(open: (suffix: string) => TestQueue): Promise<void> {
  const emails = (queue: TestQueue) => queue.enqueueMany([0, 1, 2].map((n) => ({ kind: 'email' as const, payload: { recipient: `${n}@example.com` } })));
  {
    const queue = open('resume');
    await queue.pause({ kind: 'email' });
    await emails(queue);
    expect(await queue.claim({ max: 10 })).toHaveLength(0);
    await queue.resume({ kind: 'email', batch: 1 });
    expect(await queue.claim({ max: 10 })).toHaveLength(3);
    await queue.close();
  }
  {
    const queue = open('set-limits');
    await queue.setLimits({ kinds: { email: { concurrency: 1 } } });
    await emails(queue);
    expect(await queue.claim({ max: 10 })).toHaveLength(1);
    await queue.setLimits({});
    expect(await queue.claim({ max: 10 })).toHaveLength(2);
    await queue.close();
  }
  {
    const queue = open('unpark');
    await queue.setLimits({ kinds: { email: { concurrency: 1 } } });
    await emails(queue);
    expect(await queue.claim({ max: 10 })).toHaveLength(1);
    await queue.client.hdel(queue.keys.admission, 'cap_kind:email');
    expect(await queue.unparkFreed()).toEqual({ unparked: 2, more: false });
    expect(await queue.claim({ max: 10 })).toHaveLength(2);
    await queue.close();
  }
}

/** The metrics history's three scripts (enqueue counting, a worker's add, the read), the first two counting. */
async function historyVerbs(queue: TestQueue): Promise<void> {
  await queue.enqueue('email', { recipient: 'a@example.com' });
  await queue.enqueueFlow({ kind: 'email', payload: { recipient: 'b@example.com' }, children: [{ kind: 'email', payload: { recipient: 'c@example.com' } }] });
  const amounts = new Array<number>(METRICS_SLOT_FIELDS).fill(0);
  amounts[HISTORY_FIELD.completed - 1] = 4;
  await addHistory(queue.partitions[0]!.ctx, new Map([['email', amounts]]));
  const read = await queue.history({ kind: 'email' });
  expect([read.enqueued, read.completed].map((column) => column.reduce((a, b) => a + b, 0))).toEqual([3, 4]);
  await queue.close();
}

describe('lazy script libraries', () => {
  test.runIf(scriptsMode() === 'functions')('the metrics history works as the first calls of a freshly loaded library (after a restart)', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, metricsHistory: true });
    await flushFunctions(redis);
    await historyVerbs(queue);
  });

  test('the metrics history works through EVALSHA (a Redis user without functions)', async ({ redis, redisUrl, queueName }) => {
    const user = `nofn-history-${queueName}`.replace(/[^A-Za-z0-9-]/g, '');
    await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'on', '>pw-for-test', '~*', '&*', '+@all', '-fcall', '-function'));
    try {
      await historyVerbs(new Queue({ redis: urlWithUser(redisUrl, user, 'pw-for-test'), queue: queueName, kinds, metricsHistory: true }));
    } finally {
      await onEveryNode(redis, (node) => node.acl('DELUSER', user));
    }
  });

  // The pass through EVALSHA (JOBS_TEST_SCRIPTS=eval) has no functions to flush.
  test.runIf(scriptsMode() === 'functions')('a verb that frees a running slot works as the first call of a freshly loaded library (after a restart)', async ({ redis, queueName }) => {
    await slotVerbs((suffix) => new Queue({ redis, queue: `${queueName}-${suffix}`, kinds }), () => flushFunctions(redis));
  });

  test('a verb that frees a running slot works through EVALSHA (a Redis user without functions)', async ({ redis, redisUrl, queueName }) => {
    const user = `nofn-${queueName}`.replace(/[^A-Za-z0-9-]/g, '');
    await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'on', '>pw-for-test', '~*', '&*', '+@all', '-fcall', '-function'));
    try {
      await slotVerbs((suffix) => new Queue({ redis: urlWithUser(redisUrl, user, 'pw-for-test'), queue: `${queueName}-${suffix}`, kinds }), async () => undefined);
    } finally {
      await onEveryNode(redis, (node) => node.acl('DELUSER', user));
    }
  });

  test('a verb that moves parked jobs back works through EVALSHA (a Redis user without functions)', async ({ redis, redisUrl, queueName }) => {
    const user = `nofn-unpark-${queueName}`.replace(/[^A-Za-z0-9-]/g, '');
    await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'on', '>pw-for-test', '~*', '&*', '+@all', '-fcall', '-function'));
    const queues: TestQueue[] = [];
    try {
      await unparkVerbs((suffix) => {
        const queue = new Queue({ redis: urlWithUser(redisUrl, user, 'pw-for-test'), queue: `${queueName}-${suffix}`, kinds });
        queues.push(queue);
        return queue;
      });
    } finally {
      await Promise.all(queues.map((queue) => deleteQueueKeys(redis, queue.name)));
      await onEveryNode(redis, (node) => node.acl('DELUSER', user));
    }
  });

  test("an operator's verb on a group, a priority or a flow works through EVALSHA (a Redis user without functions)", async ({ redis, redisUrl, queueName }) => {
    const user = `nofn-ops-${queueName}`.replace(/[^A-Za-z0-9-]/g, '');
    await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'on', '>pw-for-test', '~*', '&*', '+@all', '-fcall', '-function'));
    const queue = new Queue({ redis: urlWithUser(redisUrl, user, 'pw-for-test'), queue: queueName, kinds });
    try {
      const grouped = await queue.enqueue('email', { recipient: 'a@example.com' }, { group: 'acme', delayMs: 3_600_000 });
      expect(await queue.promote(grouped)).toEqual({ promoted: true });
      const other = await queue.enqueue('email', { recipient: 'b@example.com' });
      expect(await queue.changePriority(other, 7)).toEqual({ changed: true, priority: 7 });
      expect(await queue.remove(grouped)).toEqual({ removed: true });
      const flow = await queue.enqueueFlow({ kind: 'email', payload: { recipient: 'c@example.com' }, children: [{ kind: 'email', payload: { recipient: 'd@example.com' } }] });
      expect(await queue.remove(flow.children[0]!.id)).toEqual({ removed: true });
      expect(await queue.remove(flow.id)).toEqual({ removed: true });
      expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([other]);
    } finally {
      await queue.close();
      await onEveryNode(redis, (node) => node.acl('DELUSER', user));
    }
  });
});
