import { redisTest as test, waitFor, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, Queue, queueKeys, type ClaimedJob, type EnqueueOptions, type PayloadTypesOf } from '../src/index.ts';
import { kinds, openQueue } from './fixtures.ts';
import { RecipeClient } from './recipe-client.ts';

type Q = Queue<PayloadTypesOf<typeof kinds>>;

/** The Redis clock, in ms. */
async function redisNow(redis: TestRedis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** Enqueues one email with `options` and returns enqueueMany's result for it. */
async function send(queue: Q, recipient: string, options: EnqueueOptions) {
  const [result] = await queue.enqueueMany([{ kind: 'email', payload: { recipient }, options }]);
  return result as NonNullable<typeof result>;
}

async function claimOne(queue: Q): Promise<ClaimedJob> {
  const [job] = await queue.claim();
  if (job === undefined) throw new Error('nothing to claim');
  return job;
}

const untilDone = (key: string): EnqueueOptions => ({ dedupe: { key, mode: 'until-done' } });

describe('dedupe: until-done', () => {
  test('a second enqueue with the key while the first job waits is absorbed into it and writes nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const first = await send(queue, 'a@example.com', untilDone('order-1'));
    const second = await send(queue, 'b@example.com', untilDone('order-1'));
    expect(first).toEqual({ id: first.id, created: true });
    expect(second).toEqual({ id: first.id, created: false, heldBy: 'dedupe' });
    // enqueue() answers with the job that absorbed it, as for an idempotency key.
    expect(await queue.enqueue('email', { recipient: 'c@example.com' }, untilDone('order-1'))).toBe(first.id);
    expect(await redis.llen(queueKeys(queueName).pending)).toBe(1);
    expect((await queue.stats()).enqueuedTotal).toBe(1);
    // The default replaces nothing: the first payload stands.
    expect(JSON.parse((await redis.hget(queueKeys(queueName).job(first.id), 'payload')) as string)).toMatchObject({ recipient: 'a@example.com' });
    expect(await redis.get(queueKeys(queueName).dedupe('email', 'order-1'))).toBe(first.id);
    await queue.close();
  });

  test('on a partitioned queue the key picks the partition, so it holds queue-wide', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 4 });
    const ids = [];
    for (let n = 0; n < 6; n += 1) ids.push(await queue.enqueue('email', { recipient: 'a@example.com', n }, untilDone('p')));
    expect(new Set(ids).size).toBe(1);
    expect(await queue.dedupeOwner('email', 'p')).toMatchObject({ jobId: ids[0], status: 'pending', holding: true });
    await queue.close();
  });

  test('the key is per kind, and two jobs of one call with one key make one job', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const results = await queue.enqueueMany([
      { kind: 'email', payload: { recipient: 'a@example.com' }, options: untilDone('k') },
      { kind: 'webhook', payload: { url: 'https://example.com/' }, options: untilDone('k') },
      { kind: 'email', payload: { recipient: 'b@example.com' }, options: untilDone('k') },
    ]);
    expect(results.map((r) => r.created)).toEqual([true, true, false]);
    expect(results[2]?.id).toBe(results[0]?.id);
    await queue.close();
  });

  test("replace: 'payload' gives the waiting job the latest payload", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const first = await send(queue, 'old@example.com', { dedupe: { key: 'u', mode: 'until-done', replace: 'payload' } });
    await send(queue, 'new@example.com', { dedupe: { key: 'u', mode: 'until-done', replace: 'payload' } });
    const job = await claimOne(queue);
    expect(job.id).toBe(first.id);
    expect(job.payload).toMatchObject({ recipient: 'new@example.com' });
    await queue.close();
  });

  test('a running job still absorbs; once it completes the key is released and the next enqueue makes a new job', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const first = await send(queue, 'a@example.com', untilDone('k'));
    const job = await claimOne(queue);
    expect((await send(queue, 'a@example.com', untilDone('k'))).id).toBe(first.id);
    await queue.complete(job, 'ok');
    expect(await redis.exists(queueKeys(queueName).dedupe('email', 'k'))).toBe(0);
    const next = await send(queue, 'a@example.com', untilDone('k'));
    expect(next.created).toBe(true);
    expect(next.id).not.toBe(first.id);
    await queue.close();
  });

  test('a failed attempt that will be retried keeps the key; the last one releases it', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { maxAttempts: 2, backoff: { type: 'fixed', delayMs: 0 } });
    const first = await send(queue, 'a@example.com', untilDone('k'));
    await queue.fail(await claimOne(queue), new Error('boom'));
    expect((await send(queue, 'a@example.com', untilDone('k'))).id).toBe(first.id);
    await queue.fail(await claimOne(queue), new Error('boom'));
    expect(await redis.hget(queueKeys(queueName).job(first.id), 'status')).toBe('failed');
    expect(await redis.exists(queueKeys(queueName).dedupe('email', 'k'))).toBe(0);
    await queue.close();
  });
});

describe('dedupe keys are released by every path that ends a job', () => {
  const key = (queueName: string) => queueKeys(queueName).dedupe('email', 'end');
  const cases: [string, (queue: Q, redis: TestRedis, id: string, queueName: string) => Promise<void>, Parameters<typeof openQueue>[2]?][] = [
    ['completed, its hash kept in history', async (queue) => queue.complete(await claimOne(queue), 1)],
    ['completed with no history kept (the hash deleted)', async (queue) => queue.complete(await claimOne(queue), 1), { completedHistory: 0 }],
    ['dead-lettered', async (queue) => void (await queue.fail(await claimOne(queue), new Error('x'), { permanent: true }))],
    ['cancelled', async (queue, _redis, id) => void (await queue.cancel(id))],
    ['removed', async (queue, _redis, id) => void (await queue.remove(id))],
    ['purged', async (queue) => void (await queue.purge())],
    [
      'expired before it started',
      async (queue, redis, id, queueName) => {
        const expiresAt = Number(await redis.hget(queueKeys(queueName).job(id), 'expires_at_ms'));
        await waitFor(async () => (await redisNow(redis)) > expiresAt, { what: 'the expiry' });
        expect(await queue.claim()).toEqual([]);
      },
    ],
    [
      'reclaimed after its worker died on its last attempt',
      async (queue, redis) => {
        const job = await claimOne(queue);
        await waitFor(async () => (await redisNow(redis)) > job.leaseExpiresAtMs, { what: 'the lease expiry' });
        expect((await queue.reclaimStuck()).deadLettered).toEqual([job.id]);
      },
      { maxAttempts: 1, visibilityMs: 50 },
    ],
    [
      'trimmed off the completed history',
      async (queue) => {
        await queue.complete(await claimOne(queue), 1);
        await queue.enqueue('email', { recipient: 'other@example.com' });
        await queue.complete(await claimOne(queue), 1);
      },
      { completedHistory: 1 },
    ],
  ];
  for (const [what, end, options] of cases) {
    test(what, async ({ redis, queueName }) => {
      const queue = openQueue(redis, queueName, options);
      // The trim case holds its key while completed, so only the trim releases it; the expiry
      // case needs a job that can expire.
      const unique = what.startsWith('trimmed') ? { unique: { key: 'end', states: ['waiting', 'running', 'completed'] as const } } : { dedupe: { key: 'end', mode: 'until-done' as const } };
      const first = await send(queue, 'a@example.com', { ...unique, ...(what.startsWith('expired') && { ttlMs: 50 }) });
      expect(await redis.get(key(queueName))).toBe(first.id);
      await end(queue, redis, first.id, queueName);
      expect(await redis.exists(key(queueName))).toBe(0);
      const next = await send(queue, 'a@example.com', unique);
      expect(next.created).toBe(true);
      await queue.close();
    });
  }
});

describe('dedupe: throttle and debounce', () => {
  test('throttle absorbs every enqueue for ttlMs, even after the job completed and was deleted', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { completedHistory: 0 });
    const throttle: EnqueueOptions = { dedupe: { key: 't', mode: 'throttle', ttlMs: 60_000 } };
    const first = await send(queue, 'a@example.com', throttle);
    await queue.complete(await claimOne(queue), 1);
    expect(await redis.exists(queueKeys(queueName).job(first.id))).toBe(0);
    expect(await send(queue, 'a@example.com', throttle)).toEqual({ id: first.id, created: false, heldBy: 'dedupe' });
    const ttl = await redis.pttl(queueKeys(queueName).dedupe('email', 't'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await queue.close();
  });

  test('throttle lets the next job in once its window has passed', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const throttle: EnqueueOptions = { dedupe: { key: 't', mode: 'throttle', ttlMs: 20 } };
    const first = await send(queue, 'a@example.com', throttle);
    await waitFor(async () => (await redis.exists(queueKeys(queueName).dedupe('email', 't'))) === 0, { what: 'the window to pass' });
    const next = await send(queue, 'a@example.com', throttle);
    expect(next.created).toBe(true);
    expect(next.id).not.toBe(first.id);
    await queue.close();
  });

  test('debounce delays the job ttlMs, and each enqueue absorbed gives it its payload and pushes its start, up to maxWaitMs', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const k = queueKeys(queueName);
    const debounce: EnqueueOptions = { dedupe: { key: 'd', mode: 'debounce', ttlMs: 10_000, maxWaitMs: 15_000 } };
    const first = await send(queue, 'v1@example.com', debounce);
    const enqueuedAt = Number(await redis.hget(k.job(first.id), 'enqueued_at_ms'));
    const due1 = Number(await redis.zscore(k.delayed, first.id));
    expect(due1).toBe(enqueuedAt + 10_000);
    const second = await send(queue, 'v2@example.com', debounce);
    expect(second).toEqual({ id: first.id, created: false, heldBy: 'dedupe' });
    const due2 = Number(await redis.zscore(k.delayed, first.id));
    expect(due2).toBeGreaterThanOrEqual(due1);
    expect(due2).toBeLessThanOrEqual(enqueuedAt + 15_000);
    expect(Number(await redis.hget(k.job(first.id), 'run_at_ms'))).toBe(due2);
    expect(JSON.parse((await redis.hget(k.job(first.id), 'payload')) as string)).toMatchObject({ recipient: 'v2@example.com' });
    await queue.close();
  });

  test('debounce never pushes the start past maxWaitMs after the first enqueue', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const k = queueKeys(queueName);
    const debounce: EnqueueOptions = { dedupe: { key: 'd', mode: 'debounce', ttlMs: 10_000, maxWaitMs: 10_000 } };
    const first = await send(queue, 'v1@example.com', debounce);
    const due1 = Number(await redis.zscore(k.delayed, first.id));
    await waitFor(async () => (await redisNow(redis)) > due1 - 10_000 + 5, { what: 'a few ms on the Redis clock' });
    await send(queue, 'v2@example.com', debounce);
    expect(Number(await redis.zscore(k.delayed, first.id))).toBe(due1);
    await queue.close();
  });

  test('debounce: a job delayed for its retry has run, so the next enqueue makes a new job', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { maxAttempts: 3, backoff: { type: 'fixed', delayMs: 60_000 } });
    const debounce: EnqueueOptions = { dedupe: { key: 'd', mode: 'debounce', ttlMs: 1 } };
    const first = await send(queue, 'a@example.com', debounce);
    await waitFor(async () => (await queue.promoteDue()).promoted + (await redis.llen(queueKeys(queueName).pending)) > 0, { what: 'the job due' });
    expect(await queue.fail(await claimOne(queue), new Error('try later'))).toBe('delayed');
    const next = await send(queue, 'b@example.com', debounce);
    expect(next.created).toBe(true);
    expect(next.id).not.toBe(first.id);
    await queue.close();
  });

  test('debounce: once the job runs, the next enqueue makes a new job that takes the key', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const debounce: EnqueueOptions = { dedupe: { key: 'd', mode: 'debounce', ttlMs: 1 } };
    const first = await send(queue, 'a@example.com', debounce);
    await waitFor(async () => (await queue.promoteDue()).promoted + (await redis.llen(queueKeys(queueName).pending)) > 0, { what: 'the job due' });
    const job = await claimOne(queue);
    expect(job.id).toBe(first.id);
    const next = await send(queue, 'b@example.com', debounce);
    expect(next.created).toBe(true);
    expect(await redis.get(queueKeys(queueName).dedupe('email', 'd'))).toBe(next.id);
    // The first job's end leaves the key to its new owner.
    await queue.complete(job, 1);
    expect(await redis.get(queueKeys(queueName).dedupe('email', 'd'))).toBe(next.id);
    await queue.close();
  });
});

describe('unique jobs', () => {
  test('a conflict answers with the existing job, named as unique', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const first = await send(queue, 'a@example.com', { unique: { key: 'user-7' } });
    expect(await send(queue, 'a@example.com', { unique: { key: 'user-7' } })).toEqual({ id: first.id, created: false, heldBy: 'unique' });
    await queue.close();
  });

  test("with 'completed' in its states, a completed job keeps its key as long as its hash, TTL included", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { completedTtlSeconds: 3_600 });
    const unique: EnqueueOptions = { unique: { key: 'report', states: ['waiting', 'running', 'completed'] } };
    const first = await send(queue, 'a@example.com', unique);
    await queue.complete(await claimOne(queue), 1);
    expect((await send(queue, 'a@example.com', unique)).id).toBe(first.id);
    const ttl = await redis.ttl(queueKeys(queueName).dedupe('email', 'report'));
    expect(ttl).toBeGreaterThan(3_500);
    expect(ttl).toBeLessThanOrEqual(3_600);
    await queue.close();
  });

  test('a state left out of states frees the key: a failed job does not block unless failed is named', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const first = await send(queue, 'a@example.com', { unique: { key: 'x', states: ['waiting', 'running', 'failed'] } });
    await queue.fail(await claimOne(queue), new Error('no'), { permanent: true });
    expect((await send(queue, 'a@example.com', { unique: { key: 'x', states: ['waiting', 'running', 'failed'] } })).id).toBe(first.id);
    expect((await send(queue, 'a@example.com', { unique: { key: 'x', states: ['waiting', 'running'] } })).created).toBe(true);
    await queue.close();
  });

  test('periodMs: a completed job holds its key for the period even once its hash is deleted', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { completedHistory: 0 });
    const daily: EnqueueOptions = { unique: { key: 'day', states: ['waiting', 'running', 'completed'], periodMs: 86_400_000 } };
    const first = await send(queue, 'a@example.com', daily);
    await queue.complete(await claimOne(queue), 1);
    expect(await redis.exists(queueKeys(queueName).job(first.id))).toBe(0);
    expect((await send(queue, 'a@example.com', daily)).id).toBe(first.id);
    expect(await redis.pttl(queueKeys(queueName).dedupe('email', 'day'))).toBeGreaterThan(86_000_000);
    await queue.close();
  });
});

describe('dedupe keys are never orphaned, nor replayed twice', () => {
  test('a key whose owner a recipe client completed, knowing nothing of the key, counts as free', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const recipe = new RecipeClient(redis, queueName);
    const first = await send(queue, 'a@example.com', untilDone('r'));
    const claimed = await recipe.claim();
    expect(claimed?.id).toBe(first.id);
    expect(await recipe.complete(claimed as { id: string; token: string }, 'done')).toBe(1);
    // The key still names the finished job: the next enqueue reads its status and takes it.
    expect(await redis.get(queueKeys(queueName).dedupe('email', 'r'))).toBe(first.id);
    const next = await send(queue, 'a@example.com', untilDone('r'));
    expect(next.created).toBe(true);
    expect(await redis.get(queueKeys(queueName).dedupe('email', 'r'))).toBe(next.id);
    await queue.close();
  });

  test('an absorbed enqueue resent after a lost reply answers the same and is logged once, even once the owner ended', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { eventLog: true });
    const { enqueueScript } = await import('../src/generated/enqueue.ts');
    const k = queueKeys(queueName);
    const owner = await send(queue, 'a@example.com', untilDone('lost'));
    const argv = enqueueScript.argv(
      { pending: k.pending, delayed: k.delayed, stats: k.stats, log: k.log, jobKeys: [k.dedupe('email', 'lost')] },
      { count: 1, jobPrefix: k.jobPrefix, wakeChannel: k.wake, prefix: k.prefix, logMaxLen: 1000, metrics: 0, jobs: ['aaaabbbbccccdddd', '{"kind":"email","recipient":"b@example.com"}', 'email', '{"dedupeStates":"wdr"}'] },
    );
    const run = (): Promise<unknown> => redis.eval(enqueueScript.source, ...(argv.slice(1) as [string, string]));
    expect(await run()).toEqual([owner.id, 2]);
    // The owner ends before the resend: the resend still answers as the first run did.
    await queue.complete(await claimOne(queue), 1);
    expect(await run()).toEqual([owner.id, 2]);
    expect(await redis.exists(k.job('aaaabbbbccccdddd'))).toBe(0);
    const log = (await redis.xrange(k.log, '-', '+')) as [string, string[]][];
    expect(log.filter(([, fields]) => fields.includes('deduplicated'))).toHaveLength(1);
    await queue.close();
  });
});

describe('dedupe and unique: bad input writes nothing', () => {
  const cases: [string, EnqueueOptions, string][] = [
    ['an unknown mode', { dedupe: { key: 'k', mode: 'sometimes' as 'throttle', ttlMs: 1 } }, 'options.dedupe.mode'],
    ['until-done with a ttl', { dedupe: { key: 'k', mode: 'until-done', ttlMs: 5 } }, 'options.dedupe.ttlMs'],
    ['throttle without a ttl', { dedupe: { key: 'k', mode: 'throttle' } }, 'options.dedupe.ttlMs'],
    ['maxWaitMs shorter than ttlMs', { dedupe: { key: 'k', mode: 'debounce', ttlMs: 100, maxWaitMs: 50 } }, 'options.dedupe.maxWaitMs'],
    ['maxWaitMs outside debounce', { dedupe: { key: 'k', mode: 'throttle', ttlMs: 100, maxWaitMs: 500 } }, 'options.dedupe.maxWaitMs'],
    ['an unknown dedupe key', { dedupe: { key: 'k', mode: 'until-done', window: 1 } as never }, 'options.dedupe.window'],
    ['an empty key', { unique: { key: '' } }, 'options.unique.key'],
    ['an unknown state', { unique: { key: 'k', states: ['done' as 'completed'] } }, 'options.unique.states[0]'],
    ['dedupe and unique together', { dedupe: { key: 'k', mode: 'until-done' }, unique: { key: 'k' } }, 'options.unique'],
    ['a debounce with a delay', { dedupe: { key: 'k', mode: 'debounce', ttlMs: 10 }, delayMs: 5 }, 'options.delayMs'],
  ];
  for (const [what, options, field] of cases) {
    test(what, async ({ redis, queueName }) => {
      const queue = openQueue(redis, queueName);
      const error = await queue.enqueue('email', { recipient: 'a@example.com' }, options).then(() => undefined, (e: unknown) => e);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT')).toBe(true);
      expect((error as { field?: string }).field).toBe(field);
      expect(await redis.exists(queueKeys(queueName).pending)).toBe(0);
      await queue.close();
    });
  }

  test('a child of a flow refuses dedupe, as its parent waits for the child it made; a root refuses debounce', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const child = await queue
      .enqueueFlow({ kind: 'email', payload: { recipient: 'a@example.com' }, children: [{ kind: 'email', payload: { recipient: 'b@example.com' }, options: { dedupe: { key: 'k', mode: 'until-done' } } }] })
      .then(() => undefined, (e: unknown) => e);
    expect(isJobsError(child, 'JOBS_INVALID_ARGUMENT')).toBe(true);
    expect((child as { field?: string }).field).toBe('flow.children[0].options.dedupe');
    const root = await queue
      .enqueueFlow({ kind: 'email', payload: { recipient: 'a@example.com' }, options: { dedupe: { key: 'k', mode: 'debounce', ttlMs: 10 } } })
      .then(() => undefined, (e: unknown) => e);
    expect((root as { field?: string }).field).toBe('flow.options.dedupe.mode');
    expect(await redis.exists(queueKeys(queueName).pending)).toBe(0);
    await queue.close();
  });
});

describe('dedupe on a flow', () => {
  const flow = (recipient: string) => ({
    kind: 'email' as const,
    payload: { recipient },
    options: { unique: { key: 'nightly' } },
    children: [{ kind: 'email' as const, payload: { recipient: 'child@example.com' } }],
  });

  test("a flow whose root's key is held is absorbed whole: nothing is written, the holder's id answers", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const first = await queue.enqueueFlow(flow('a@example.com'));
    expect(first.heldBy).toBeUndefined();
    // The root waits for its child, and holds its key meanwhile.
    expect(await redis.hget(queueKeys(queueName).job(first.id), 'status')).toBe('waiting-children');
    const second = await queue.enqueueFlow(flow('b@example.com'));
    expect(second).toEqual({ id: first.id, children: [], heldBy: 'unique' });
    expect((await queue.stats()).enqueuedTotal).toBe(2);
    // Once the flow is done, the next one is written.
    await queue.complete(await claimOne(queue), 'child done');
    await queue.complete(await claimOne(queue), 'root done');
    const third = await queue.enqueueFlow(flow('c@example.com'));
    expect(third.heldBy).toBeUndefined();
    expect(third.id).not.toBe(first.id);
    await queue.close();
  });

  test('an absorbed flow resent after a lost reply answers the same', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const owner = await send(queue, 'a@example.com', { unique: { key: 'nightly' } });
    const { enqueueFlowScript } = await import('../src/generated/enqueue-flow.ts');
    const k = queueKeys(queueName);
    const argv = enqueueFlowScript.argv(
      { pending: k.pending, delayed: k.delayed, stats: k.stats, log: k.log, jobKeys: [k.dedupe('email', 'nightly')] },
      { count: 1, jobPrefix: k.jobPrefix, wakeChannel: k.wake, prefix: k.prefix, logMaxLen: 0, metrics: 0, jobs: ['aaaabbbbccccdddd', '{"kind":"email","recipient":"b@example.com"}', 'email', '{"dedupeStates":"wdr"}', '', ''] },
    );
    const run = (): Promise<unknown> => redis.eval(enqueueFlowScript.source, ...(argv.slice(1) as [string, string]));
    expect(await run()).toEqual([2, owner.id]);
    await queue.complete(await claimOne(queue), 1);
    expect(await run()).toEqual([2, owner.id]);
    expect(await redis.exists(k.job('aaaabbbbccccdddd'))).toBe(0);
    await queue.close();
  });
});

