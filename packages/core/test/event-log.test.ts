import { queueKeysIn, redisNodes, redisTest as test, waitFor, within, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { Schedules } from '../src/schedules/schedules.ts';
import { isJobsError, Queue, RedisScheduleStore, ScheduleRunner, type ClaimedJob, type LogEvent, type LogItem, type PayloadTypesOf, type QueueOptions, type RedisClient } from '../src/index.ts';
import { kinds } from './fixtures.ts';

type TestQueue = Queue<PayloadTypesOf<typeof kinds>>;

function openLogged(redis: RedisClient, queueName: string, options: QueueOptions & { workerId?: string } = {}): TestQueue {
  return new Queue({ redis, queue: queueName, kinds, eventLog: true, workerId: 'w-1', ...options });
}

/** Every entry of the queue's log, read directly with XRANGE. */
async function logEntries(redis: TestRedis, queueName: string): Promise<{ id: string; fields: Record<string, string> }[]> {
  const raw = await redis.xrange(`queue:{${queueName}}:log`, '-', '+');
  return raw.map(([id, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
    return { id, fields };
  });
}

/** The events the log holds for job `id`, in order, as "event attempt worker code". */
async function eventsOf(redis: TestRedis, queueName: string, id: string): Promise<string[]> {
  return (await logEntries(redis, queueName)).filter((e) => e.fields.job === id).map((e) => [e.fields.event, e.fields.attempt, e.fields.worker, e.fields.code].join(' ').trim());
}

/** Pulls `count` items from a follower (each within a deadline of its own). */
async function take(iterator: AsyncIterator<LogItem>, count: number): Promise<LogItem[]> {
  const items: LogItem[] = [];
  while (items.length < count) {
    const next = await within(iterator.next(), 8_000, () => `item ${items.length + 1} of ${count} (got ${JSON.stringify(items.slice(0, 3))})`);
    if (next.done) break;
    items.push(next.value);
  }
  return items;
}

const mail = { recipient: 'a@example.com' };

describe('the event log: every state change is logged by the script that makes it', () => {
  test('enqueued, claimed, completed: with the attempt and the worker id, in order', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    const id = await queue.enqueue('email', mail);
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(job, { big: 'x'.repeat(10_000) });
    expect(await eventsOf(redis, queueName, id)).toEqual(['enqueued 0', 'claimed 1 w-1', 'completed 1 w-1']);
    await queue.close();
  });

  test('retried and failed carry the error code; a redrive is logged as redriven', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName, { maxAttempts: 2 });
    const id = await queue.enqueue('email', mail);
    let [job] = (await queue.claim()) as [ClaimedJob];
    const timeout = Object.assign(new Error('smtp timed out'), { code: 'ETIMEDOUT' });
    expect(await queue.fail(job, timeout, { retryDelayMs: 0 })).toBe('retried');
    [job] = (await queue.claim()) as [ClaimedJob];
    expect(await queue.fail(job, new TypeError('bad'))).toBe('failed');
    expect(await queue.retry([id])).toEqual([true]);
    expect(await eventsOf(redis, queueName, id)).toEqual(['enqueued 0', 'claimed 1 w-1', 'retried 1 w-1 ETIMEDOUT', 'claimed 2 w-1', 'failed 2 w-1 TypeError', 'redriven 0 w-1']);
    await queue.close();
  });

  test('a delayed retry and a delayed job are logged as promoted when they become due', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    const id = await queue.enqueue('email', mail, { delayMs: 30 });
    await waitFor(async () => (await queue.promoteDue()).promoted === 1, { what: 'the delayed job promoted' });
    expect(await eventsOf(redis, queueName, id)).toEqual(['enqueued 0', 'promoted 0']);
    await queue.close();
  });

  test('reclaimed (attempts left) and failed with LEASE_EXPIRED (last attempt), by the sweeping process', async ({ redis, queueName }) => {
    const worker = openLogged(redis, queueName, { visibilityMs: 30, maxAttempts: 2 });
    const sweeper = openLogged(redis, queueName, { workerId: 'sweeper', visibilityMs: 30, maxAttempts: 2 });
    const id = await worker.enqueue('email', mail);
    await worker.claim();
    await waitFor(async () => (await sweeper.reclaimStuck()).reclaimed.length === 1, { what: 'the first lease reclaimed' });
    await worker.claim();
    await waitFor(async () => (await sweeper.reclaimStuck()).deadLettered.length === 1, { what: 'the second lease dead-lettered' });
    expect(await eventsOf(redis, queueName, id)).toEqual(['enqueued 0', 'claimed 1 w-1', 'reclaimed 1 sweeper LEASE_EXPIRED', 'claimed 2 w-1', 'failed 2 sweeper LEASE_EXPIRED']);
    await Promise.all([worker.close(), sweeper.close()]);
  });

  test('cancelled, released, and completeAndClaim logs both the completion and the next claim', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    const cancelled = await queue.enqueue('email', mail);
    expect(await queue.cancel(cancelled)).toEqual({ cancelled: true, wasRunning: false });
    const [a, b] = [await queue.enqueue('email', mail), await queue.enqueue('email', mail)];
    const [jobA] = (await queue.claim()) as [ClaimedJob];
    expect(await queue.release([jobA])).toEqual([true]);
    const [again] = (await queue.claim()) as [ClaimedJob];
    const { completed, next } = await queue.completeAndClaim(again, 1, { max: 1 });
    expect(completed).toBe(true);
    expect(next.map((job) => job.id)).toEqual([b]);
    expect(await eventsOf(redis, queueName, cancelled)).toEqual(['enqueued 0', 'cancelled 0 w-1']);
    expect(await eventsOf(redis, queueName, a)).toEqual(['enqueued 0', 'claimed 1 w-1', 'released 0 w-1', 'claimed 1 w-1', 'completed 1 w-1']);
    expect(await eventsOf(redis, queueName, b)).toEqual(['enqueued 0', 'claimed 1 w-1']);
    await queue.close();
  });

  test('progress is logged in the stream (not in the timeline index); a job past its expiry is logged as expired when a claim meets it', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    const id = await queue.enqueue('email', mail);
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.progress(job, { percent: 50 });
    const expiring = await queue.enqueue('email', mail, { ttlMs: 1 });
    const enqueuedAt = (await queue.getJob(expiring))?.enqueuedAtMs ?? 0;
    // Past its expiry on the Redis clock before a claim can meet it.
    await waitFor(async () => {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000) > enqueuedAt + 1;
    }, { what: 'the Redis clock past the expiry' });
    await waitFor(async () => {
      await queue.claim();
      return (await queue.getJob(expiring))?.status === 'failed';
    }, { what: 'the expired job met by a claim' });
    expect(await eventsOf(redis, queueName, id)).toEqual(['enqueued 0', 'claimed 1 w-1', 'progress 1 w-1']);
    expect((await queue.timeline(id))?.events.map((e) => e.event)).toEqual(['enqueued', 'claimed']);
    expect(await eventsOf(redis, queueName, expiring)).toEqual(['enqueued 0', 'expired 0 w-1 JOBS_EXPIRED']);
    await queue.close();
  });

  test('a schedule tick logs the job it enqueues', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    await new Schedules(queue.partitions[0]!.ctx, { minEveryMs: 100 }).upsert({ id: 'poll', kind: 'email', payload: mail, every: 100 });
    const runner = new ScheduleRunner({ store: new RedisScheduleStore(redis, queue.keys, 1_000) });
    runner.start();
    await waitFor(async () => (await logEntries(redis, queueName)).length > 0, { what: 'a tick logged' });
    await within(runner.stop(), 5_000, () => 'runner stop');
    const [first] = await logEntries(redis, queueName);
    expect(first?.fields).toMatchObject({ event: 'enqueued', attempt: '0' });
    expect(first?.fields.job).toMatch(/^sched:poll:\d+$/);
    await queue.close();
  });

  test('with the log off (the default) no stream is written and no hash carries log ids', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, visibilityMs: 30, maxAttempts: 2 });
    const ids = [await queue.enqueue('email', mail), await queue.enqueue('email', mail), await queue.enqueue('email', mail, { delayMs: 1 })];
    const [a, b] = (await queue.claim({ max: 2 })) as [ClaimedJob, ClaimedJob];
    await queue.complete(a, 1);
    await queue.fail(b, new Error('x'), { permanent: true });
    await queue.retry([b.id]);
    await waitFor(async () => (await queue.promoteDue()).promoted >= 0 && (await queue.claim({ max: 5 })).length > 0, { what: 'a claim' });
    await waitFor(async () => (await queue.reclaimStuck()).reclaimed.length > 0, { what: 'a reclaim' });
    await queue.cancel(ids[2] as string);
    expect((await queueKeysIn(redis, queueName)).filter((key) => key.endsWith(':log'))).toEqual([]);
    for (const id of ids) expect(await redis.hexists(`queue:{${queueName}}:job:${id}`, 'log_ids')).toBe(0);
    expect(await queue.timeline(ids[0] as string)).toMatchObject({ events: [], trimmed: 0 });
    await queue.close();
  });
});

describe('a job timeline', () => {
  test('reads a job its own events from the ids its hash keeps, and counts those the log trimmed', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName, { eventLog: { maxLen: 10 } });
    const id = await queue.enqueue('email', mail);
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(job, { sent: true });
    const timeline = await queue.timeline(id);
    expect(timeline?.events.map((e) => [e.event, e.attempt, e.worker])).toEqual([
      ['enqueued', 0, null],
      ['claimed', 1, 'w-1'],
      ['completed', 1, 'w-1'],
    ]);
    expect(timeline?.trimmed).toBe(0);
    // Push the job's entries out of the capped log: the timeline says so instead of inventing them.
    await queue.enqueueMany(Array.from({ length: 500 }, () => ({ kind: 'email' as const, payload: mail })));
    const later = await queue.timeline(id);
    expect(later?.events).toEqual([]);
    expect(later?.trimmed).toBe(3);
    expect(await queue.timeline('0000000000000000')).toBeNull();
    await queue.close();
  });

  test('a hash whose log_ids holds words that are no stream ids still reads: they are counted with the trimmed', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    const id = await queue.enqueue('email', mail);
    const key = `queue:{${queueName}}:job:${id}`;
    const [logged] = String(await redis.hget(key, 'log_ids')).split(' ');
    await redis.hset(key, 'log_ids', `not-an-id ${logged} 12 <b>`);
    const timeline = await queue.timeline(id);
    expect(timeline?.events.map((e) => e.event)).toEqual(['enqueued']);
    expect(timeline?.trimmed).toBe(3);
    await queue.close();
  });

  test('a job that retries many times keeps only its last 64 ids, and its timeline reads them in one step', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName, { maxAttempts: 100 });
    const id = await queue.enqueue('email', mail);
    for (let n = 0; n < 40; n += 1) {
      const [job] = (await queue.claim()) as [ClaimedJob];
      await queue.fail(job, new Error('again'), { retryDelayMs: 0 });
    }
    const ids = String(await redis.hget(`queue:{${queueName}}:job:${id}`, 'log_ids')).split(' ');
    expect(ids).toHaveLength(64);
    const timeline = await queue.timeline(id);
    expect(timeline?.events).toHaveLength(64);
    expect(timeline?.events.at(-1)).toMatchObject({ event: 'retried', attempt: 40, code: 'Error' });
    expect((await queue.timeline(id, { limit: 5 }))?.events.map((e) => e.id)).toEqual(ids.slice(-5));
    await queue.close();
  });
});

describe('following the event log', () => {
  test('a follower started from now misses nothing enqueued after its start resolved', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    await queue.enqueue('email', mail);
    const follower = await queue.events();
    const ids = (await queue.enqueueMany(Array.from({ length: 50 }, () => ({ kind: 'email' as const, payload: mail })))).map((r) => r.id);
    const items = await take(follower[Symbol.asyncIterator](), 50);
    expect(items.map((item) => (item as LogEvent).jobId)).toEqual(ids);
    await follower.close();
    await queue.close();
  });

  test('a follower stopped for a while resumes from its last id and receives every event once', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    const first = await queue.events({ from: '0' });
    await queue.enqueueMany(Array.from({ length: 20 }, () => ({ kind: 'email' as const, payload: mail })));
    const seen = await take(first[Symbol.asyncIterator](), 10);
    const cursor = first.cursor;
    expect(cursor).toBe((seen.at(-1) as LogEvent).id);
    await first.close();
    // Meanwhile: more events while nobody follows.
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(job, 1);
    const resumed = await queue.events({ from: cursor });
    const rest = await take(resumed[Symbol.asyncIterator](), 12);
    await resumed.close();
    const all = [...seen, ...rest] as LogEvent[];
    expect(all.every((item) => item.type === 'event')).toBe(true);
    expect(all.map((item) => item.id)).toEqual((await logEntries(redis, queueName)).map((entry) => entry.id));
    expect(new Set(all.map((item) => item.id)).size).toBe(22);
    await queue.close();
  });

  test('a follower resumed past the capped log delivers one gap marker, then every event after it once', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName, { eventLog: { maxLen: 10 } });
    await queue.enqueue('email', mail);
    const follower = await queue.events({ from: '0' });
    const [firstItem] = await take(follower[Symbol.asyncIterator](), 1);
    const cursor = (firstItem as LogEvent).id;
    await follower.close();
    await queue.enqueueMany(Array.from({ length: 1_000 }, () => ({ kind: 'email' as const, payload: mail })));
    const kept = await logEntries(redis, queueName);
    expect(kept.length).toBeLessThan(1_000);
    const resumed = await queue.events({ from: cursor });
    const items = await take(resumed[Symbol.asyncIterator](), kept.length + 1);
    await resumed.close();
    const [gap, ...events] = items;
    expect(gap).toMatchObject({ type: 'gap', after: cursor });
    expect(events.map((item) => (item as LogEvent).id)).toEqual(kept.map((entry) => entry.id));
    await queue.close();
  });

  test('a follower that falls behind the capped log while it runs delivers exactly one gap marker, then the kept events once', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName, { eventLog: { maxLen: 10 } });
    const follower = await queue.events({ batch: 5 });
    const iterator = follower[Symbol.asyncIterator]();
    await queue.enqueueMany(Array.from({ length: 3 }, () => ({ kind: 'email' as const, payload: mail })));
    const early = await take(iterator, 3);
    await queue.enqueueMany(Array.from({ length: 1_000 }, () => ({ kind: 'email' as const, payload: mail })));
    const kept = await logEntries(redis, queueName);
    const items = await take(iterator, kept.length + 1);
    await follower.close();
    const [gap, ...events] = items;
    expect(gap).toMatchObject({ type: 'gap', after: (early.at(-1) as LogEvent).id });
    expect(events.map((item) => (item as LogEvent).id)).toEqual(kept.map((entry) => entry.id));
    await queue.close();
  });

  test('the log stays capped and never holds payloads or results', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName, { eventLog: { maxLen: 100 } });
    const secret = 'payload-and-result-marker';
    for (let round = 0; round < 10; round += 1) {
      await queue.enqueueMany(Array.from({ length: 100 }, () => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', subject: secret } })));
      const jobs = await queue.claim({ max: 100 });
      await queue.completeMany(jobs.map((job) => ({ job, result: { text: secret.repeat(100) } })));
    }
    const log = `queue:{${queueName}}:log`;
    // MAXLEN ~ trims whole nodes (100 entries each by default): about the cap, never the 3,000 written.
    expect(await redis.xlen(log)).toBeLessThanOrEqual(200);
    const entries = await logEntries(redis, queueName);
    expect(JSON.stringify(entries)).not.toContain(secret);
    expect(Number(await redis.memory('USAGE', log))).toBeLessThan(64 * 1024);
    await queue.close();
  });

  test('a follower whose connection is killed reconnects and delivers no event twice and none lost; restarted from its cursor, neither', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    const follower = await queue.events();
    const iterator = follower[Symbol.asyncIterator]();
    await queue.enqueueMany(Array.from({ length: 5 }, () => ({ kind: 'email' as const, payload: mail })));
    const before = await take(iterator, 5);
    // Kill the follower's connection while it blocks in XREAD (waiting for the next item).
    const waiting = iterator.next();
    const killed = await killBlockedReaders(redis);
    expect(killed).toBeGreaterThan(0);
    await queue.enqueueMany(Array.from({ length: 5 }, () => ({ kind: 'email' as const, payload: mail })));
    const first = await within(waiting, 8_000, () => 'the first item after the kill');
    const after = [first.value as LogItem, ...(await take(iterator, 4))];
    const cursor = follower.cursor;
    await follower.close();
    await queue.enqueueMany(Array.from({ length: 3 }, () => ({ kind: 'email' as const, payload: mail })));
    const restarted = await queue.events({ from: cursor });
    const tail = await take(restarted[Symbol.asyncIterator](), 3);
    await restarted.close();
    const ids = [...before, ...after, ...tail].map((item) => (item as LogEvent).id);
    expect(ids).toEqual((await logEntries(redis, queueName)).map((entry) => entry.id));
    await queue.close();
  });

  test('bad input: an unknown cursor, a bad cap or worker id gets a typed error and opens nothing', async ({ redis, queueName }) => {
    const queue = openLogged(redis, queueName);
    for (const from of ['abc', '12-x', '']) {
      const error = await queue.events({ from }).catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT') && error.field).toBe('from');
    }
    expect(() => openLogged(redis, queueName, { eventLog: { maxLen: 0 } })).toThrow(/options\.eventLog\.maxLen/);
    expect(() => openLogged(redis, queueName, { workerId: 'has space' })).toThrow(/workerId/);
    await queue.close();
  });
});

/** Kills, on every server, the connections blocked in XREAD; returns how many. */
async function killBlockedReaders(redis: TestRedis): Promise<number> {
  let killed = 0;
  await waitFor(
    async () => {
      for (const node of await redisNodes(redis)) {
        const lines = String(await node.client('LIST')).split('\n');
        for (const line of lines.filter((l) => / cmd=xread /.test(l))) {
          const id = /\bid=(\d+)/.exec(line)?.[1];
          if (id !== undefined) killed += Number(await node.client('KILL', 'ID', id));
        }
      }
      return killed > 0;
    },
    { what: 'a follower blocked in XREAD' },
  );
  return killed;
}
