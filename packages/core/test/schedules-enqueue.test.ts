import { queueKeysIn, redisTest as test, waitFor, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { defineKinds, isJobsError, Queue, RedisScheduleStore, ScheduleRunner, type PayloadTypesOf, type RedisClient, type ScheduleSpec } from '../src/index.ts';
import { Schedules } from '../src/schedules/schedules.ts';

/** Two kinds: `report` claimed before others by default (priority 5), `note` at the default. */
const kinds = defineKinds({
  report: { schema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false }, priority: 5 },
  note: { schema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false } },
});
type P = PayloadTypesOf<typeof kinds>;

function open(redis: RedisClient, queueName: string): { queue: Queue<P>; schedules: Schedules<P> } {
  const queue = new Queue({ redis, queue: queueName, kinds });
  return { queue, schedules: new Schedules(queue.partitions[0]!.ctx, { minEveryMs: 100 }) };
}

/** Runs the queue's schedules until `count` ticks have fired; the ids of their jobs, in firing order. */
async function fireTicks(redis: RedisClient, queue: Queue<P>, count: number): Promise<string[]> {
  const jobs: string[] = [];
  const runner = new ScheduleRunner({ store: new RedisScheduleStore(redis, queue.keys), onFire: (tick) => jobs.push(tick.jobId) });
  runner.start();
  await waitFor(() => jobs.length >= count, { what: `${count} ticks fired` });
  await within(runner.stop(), 5_000, () => 'runner stop');
  return jobs;
}

/** A schedule that runs `limit` ticks, 100 ms apart, then is done. */
const every = (id: string, kind: 'report' | 'note', limit: number, options?: ScheduleSpec<P>['options']): ScheduleSpec<P> =>
  ({ id, kind, payload: { n: 0 }, every: 100, limit, ...(options !== undefined && { options }) }) as ScheduleSpec<P>;

describe("a schedule's job is enqueued as enqueue enqueues a job", () => {
  test("with the metrics history on, each tick's job is counted as enqueued, per kind; off, nothing is written", async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, metricsHistory: true });
    const schedules = new Schedules(queue.partitions[0]!.ctx, { minEveryMs: 100 });
    await schedules.upsert(every('counted', 'note', 3));
    const jobs: string[] = [];
    const runner = new ScheduleRunner({ store: new RedisScheduleStore(redis, queue.keys, 0, undefined, true), onFire: (tick) => jobs.push(tick.jobId) });
    runner.start();
    await waitFor(() => jobs.length >= 3, { what: '3 ticks fired' });
    await within(runner.stop(), 5_000, () => 'runner stop');
    const history = await queue.history({ kind: 'note' });
    expect(history.enqueued.reduce((a, b) => a + b, 0)).toBe(3);
    // A runner told nothing of the history (a reclaimer's) counts the ticks of a queue that keeps one.
    await schedules.upsert(every('by-another', 'note', 1));
    await fireTicks(redis, queue, 1);
    expect((await queue.history({ kind: 'note' })).enqueued.reduce((a, b) => a + b, 0)).toBe(4);
    await queue.close();
    // The default store counts nothing.
    const off = open(redis, `${queueName}-off`);
    await off.schedules.upsert(every('quiet', 'note', 1));
    await fireTicks(redis, off.queue, 1);
    expect((await queueKeysIn(redis, `${queueName}-off`)).filter((key) => key.includes(':metrics'))).toEqual([]);
    await off.queue.purge();
    await off.queue.close();
  });

  test("it gets its kind's default priority: claimed before the older jobs of priority 0", async ({ redis, queueName }) => {
    const { queue, schedules } = open(redis, queueName);
    await queue.enqueue('note', { n: 1 });
    await queue.enqueue('note', { n: 2 });
    await schedules.upsert(every('daily', 'report', 1));
    const [jobId] = await fireTicks(redis, queue, 1);
    const [first] = await queue.claim({ max: 1 });
    expect(first?.id).toBe(jobId);
    expect(first?.priority).toBe(5);
    await queue.close();
  });

  test("the schedule's own options reach the job, over the kind's defaults, and list shows them", async ({ redis, queueName }) => {
    const { queue, schedules } = open(redis, queueName);
    const options = { priority: -3, maxAttempts: 2, visibilityMs: 5_000, group: 'acme', ttlMs: 60_000 };
    await schedules.upsert(every('daily', 'report', 1, options));
    expect((await schedules.get('daily'))?.options).toEqual(options);
    const [jobId] = await fireTicks(redis, queue, 1);
    const job = await queue.getJob(jobId as string);
    expect(job).toMatchObject({ priority: -3, fields: { max_attempts: '2', visibility_ms: '5000', group: 'acme' } });
    // Counted from the tick's enqueue, on the Redis clock.
    expect(job?.expiresAtMs).toBe(Number(job?.fields.enqueued_at_ms) + 60_000);
    await queue.close();
  });

  test('a paused kind parks it; it runs once the kind is resumed', async ({ redis, queueName }) => {
    const { queue, schedules } = open(redis, queueName);
    await queue.pause({ kind: 'report' });
    await schedules.upsert(every('daily', 'report', 1));
    const [jobId] = await fireTicks(redis, queue, 1);
    expect(await queue.claim({ max: 10 })).toEqual([]);
    expect((await queue.stats()).parkedDepth).toBe(1);
    await queue.resume({ kind: 'report' });
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([jobId]);
    await queue.close();
  });

  test("it waits for its group's turn: with a group cap of 1 it starts when the group's running job is done", async ({ redis, queueName }) => {
    const { queue, schedules } = open(redis, queueName);
    await queue.setLimits({ groups: { concurrency: 1 } });
    const running = await queue.enqueue('note', { n: 1 }, { group: 'acme' });
    const [claimed] = await queue.claim({ max: 10 });
    expect(claimed?.id).toBe(running);
    await schedules.upsert(every('daily', 'report', 1, { group: 'acme' }));
    const [jobId] = await fireTicks(redis, queue, 1);
    const other = await queue.enqueue('note', { n: 2 }, { group: 'globex' });
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([other]);
    await queue.complete(claimed!, null);
    expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([jobId]);
    await queue.close();
  });

  test("its group's rate limit holds it: one start per window for the group, while other groups go on", async ({ redis, queueName }) => {
    const { queue, schedules } = open(redis, queueName);
    await queue.setLimits({ groups: { rate: { max: 1, windowMs: 60_000 } } });
    await schedules.upsert(every('daily', 'report', 2, { group: 'acme' }));
    const ticks = await fireTicks(redis, queue, 2);
    const other = await queue.enqueue('note', { n: 1 }, { group: 'globex' });
    const claimed = (await queue.claim({ max: 10 })).map((job) => job.id);
    expect(claimed.sort()).toEqual([ticks[0], other].sort());
    expect(await queue.claim({ max: 10 })).toEqual([]);
    await queue.close();
  });

  test('bad job options get a typed error naming the option, and write nothing', async ({ redis, queueName }) => {
    const { queue, schedules } = open(redis, queueName);
    const cases: [Record<string, unknown>, string][] = [
      [{ delayMs: 10 }, 'options.delayMs'],
      [{ runAt: Date.now() + 60_000 }, 'options.runAt'],
      [{ idempotencyKey: 'k' }, 'options.idempotencyKey'],
      [{ expiresAt: Date.now() + 60_000 }, 'options.expiresAt'],
      [{ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }, 'options.traceparent'],
      [{ prority: 1 }, 'options.prority'],
      [{ priority: 5_000 }, 'options.priority'],
      [{ maxAttempts: 0 }, 'options.maxAttempts'],
      [{ group: '' }, 'options.group'],
      [{ ttlMs: -1 }, 'options.ttlMs'],
    ];
    for (const [options, field] of cases) {
      const error = await schedules.upsert({ ...every('daily', 'report', 1), options } as ScheduleSpec<P>).catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT'), `${JSON.stringify(options)}: ${String(error)}`).toBe(true);
      expect((error as { field?: string }).field).toBe(field);
    }
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
    await queue.close();
  });
});

describe("a schedule's dedupe or unique key", () => {
  test('a tick whose key is held by the last tick\'s waiting job enqueues nothing and names that job; once it completes the next tick makes one', async ({ redis, queueName }) => {
    const { queue, schedules } = open(redis, queueName);
    await schedules.upsert(every('sync', 'note', 6, { unique: { key: 'sync' } }));
    expect((await schedules.get('sync'))?.options).toEqual({ unique: { key: 'sync' } });
    const fired = await fireTicks(redis, queue, 3);
    // Every tick answered with the first tick's job: one job waits.
    expect(new Set(fired).size).toBe(1);
    const pending = await redis.lrange(queue.keys.pending, 0, -1);
    expect(pending).toEqual([fired[0]]);
    const [job] = await queue.claim();
    await queue.complete(job!, 1);
    const more = await fireTicks(redis, queue, 1);
    expect(more[0]).not.toBe(fired[0]);
    expect(await redis.get(queue.keys.dedupe('note', 'sync'))).toBe(more[0]);
    await queue.close();
  });

  test("a schedule refuses a debounce, and an upsert without the option drops the schedule's key", async ({ redis, queueName }) => {
    const { queue, schedules } = open(redis, queueName);
    const refused = await schedules.upsert(every('d', 'note', 1, { dedupe: { key: 'k', mode: 'debounce', ttlMs: 10 } })).catch((e: unknown) => e);
    expect(isJobsError(refused, 'JOBS_INVALID_ARGUMENT') && refused.field).toBe('options.dedupe.mode');
    await schedules.upsert(every('u', 'note', 3, { dedupe: { key: 'k', mode: 'until-done' } }));
    await schedules.upsert(every('u', 'note', 3));
    expect((await schedules.get('u'))?.options).toEqual({});
    const fired = await fireTicks(redis, queue, 2);
    expect(new Set(fired).size).toBe(2);
    await queue.close();
  });
});
