import { openRedis, queueKeysIn, redisTest as test, waitFor, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { isJobsError, RedisScheduleStore, ScheduleRunner, type FiredTick, type PayloadTypesOf, type ScheduleSpec } from '../src/index.ts';
import { openQueue, type kinds } from './fixtures.ts';
import { expectOneJobPerTick, fastSchedules, nextTickAfter, tickJobs } from './schedule-ticks.ts';

type P = PayloadTypesOf<typeof kinds>;

describe('schedules API', () => {
  test('upsert creates a schedule whose next run list shows, and upserting it again keeps that next run', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const created = await queue.schedules.upsert({ id: 'digest', kind: 'email', payload: { recipient: 'team@example.com' }, cron: '0 8 * * *', tz: 'Europe/Paris' });
    expect(created.created).toBe(true);
    expect(new Date(created.nextRunAt as number).toLocaleString('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit' })).toBe('08:00');
    const again = await queue.schedules.upsert({ id: 'digest', kind: 'email', payload: { recipient: 'ops@example.com' }, cron: '0 8 * * *', tz: 'Europe/Paris' });
    expect(again).toEqual({ id: 'digest', created: false, nextRunAt: created.nextRunAt });
    const [listed] = await queue.schedules.list();
    expect(listed).toMatchObject({ id: 'digest', kind: 'email', payload: { recipient: 'ops@example.com' }, cron: '0 8 * * *', tz: 'Europe/Paris', status: 'active', nextRunAt: created.nextRunAt, runs: 0 });
    await queue.close();
  });

  test('an interval runs first one interval after the upsert, by Redis time', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const { nextRunAt } = await queue.schedules.upsert({ id: 'poll', kind: 'webhook', payload: { url: 'https://example.com/feed' }, every: 30_000 });
    const record = await queue.schedules.get('poll');
    // Computed from Redis time read just before the write (updatedAt is the write's own time);
    // the slack is for a stalled client between the two, not a speed.
    const anchor = (nextRunAt as number) - 30_000;
    expect(anchor).toBeLessThanOrEqual(record?.updatedAt as number);
    expect(anchor).toBeGreaterThan((record?.updatedAt as number) - 10_000);
    await queue.close();
  });

  test('bad input gets a typed error and writes nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const base = { id: 'x', kind: 'email', payload: { recipient: 'a@example.com' } } as const;
    const cases: [unknown, string, string | undefined][] = [
      [{ ...base, cron: 'every day at noon' }, 'JOBS_INVALID_ARGUMENT', 'cron'],
      [{ ...base, cron: '61 * * * *' }, 'JOBS_INVALID_ARGUMENT', 'cron'],
      [{ ...base, cron: '0 0 31 2 *' }, 'JOBS_INVALID_ARGUMENT', 'cron'],
      [{ ...base, cron: '0 8 * * *', tz: 'Mars/Olympus' }, 'JOBS_INVALID_ARGUMENT', 'tz'],
      [{ ...base, every: 999 }, 'JOBS_INVALID_ARGUMENT', 'every'],
      [{ ...base, every: 1_000, cron: '* * * * *' }, 'JOBS_INVALID_ARGUMENT', 'cron'],
      [{ ...base, every: 1_000, tz: 'Europe/Paris' }, 'JOBS_INVALID_ARGUMENT', 'tz'],
      [{ ...base, every: 1_000, limit: 0 }, 'JOBS_INVALID_ARGUMENT', 'limit'],
      [{ ...base, every: 1_000, startAt: 2_000, endAt: 1_000 }, 'JOBS_INVALID_ARGUMENT', 'endAt'],
      [{ ...base, id: 'a:b', every: 1_000 }, 'JOBS_INVALID_ARGUMENT', 'id'],
      [{ ...base, kind: 'sms', every: 1_000 }, 'JOBS_UNKNOWN_KIND', undefined],
      [{ ...base, payload: { recipient: 'not an address' }, every: 1_000 }, 'JOBS_VALIDATION', 'payload'],
    ];
    for (const [spec, code, field] of cases) {
      const error = await queue.schedules.upsert(spec as ScheduleSpec<P>).catch((e: unknown) => e);
      expect(isJobsError(error, code as 'JOBS_INVALID_ARGUMENT'), `${JSON.stringify(spec)}: ${String(error)}`).toBe(true);
      if (field) expect((error as { field?: string }).field).toBe(field);
    }
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
    await queue.close();
  });

  test('pause stops the ticks; resume starts at the first tick after now, none at once', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.schedules.upsert({ id: 'poll', kind: 'webhook', payload: { url: 'https://example.com/' }, every: 60_000 });
    expect(await queue.schedules.pause('poll')).toBe(true);
    expect(await queue.schedules.pause('poll')).toBe(false);
    expect(await queue.schedules.get('poll')).toMatchObject({ status: 'paused', nextRunAt: null });
    expect(await redis.zcard(queue.keys.schedulesDue)).toBe(0);
    expect(await queue.schedules.resume('poll')).toBe(true);
    const resumed = await queue.schedules.get('poll');
    expect(resumed).toMatchObject({ status: 'active', runs: 0 });
    expect(resumed?.nextRunAt).toBeGreaterThan(resumed?.updatedAt as number);
    expect(await queue.schedules.resume('poll')).toBe(false);
    expect(await queue.schedules.remove('poll')).toBe(true);
    expect(await queue.schedules.remove('poll')).toBe(false);
    expect(await queue.schedules.list()).toEqual([]);
    await queue.close();
  });

  test('remove followed at once by upsert leaves a working schedule', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const schedules = fastSchedules(queue);
    const spec = { id: 'poll', kind: 'webhook', payload: { url: 'https://example.com/' }, every: 200 } as const;
    await schedules.upsert(spec);
    const runner = new ScheduleRunner({ store: new RedisScheduleStore(redis, queue.keys) });
    runner.start();
    await waitFor(async () => (await tickJobs(queue, 'poll')).length >= 1);
    await schedules.remove('poll');
    await schedules.upsert(spec);
    const before = (await tickJobs(queue, 'poll')).length;
    await waitFor(async () => (await tickJobs(queue, 'poll')).length >= before + 3);
    await within(runner.stop(), 5_000, () => 'runner stop');
    expect((await schedules.get('poll'))?.status).toBe('active');
    await queue.close();
  });
});

describe('schedule runners on real Redis', () => {
  test('two daemon runners and three worker runners, restarted over and over, make exactly one job per tick', async ({ redis, redisUrl, queueName }) => {
    const queue = openQueue(redis, queueName);
    const schedules = fastSchedules(queue);
    const every = 400;
    await schedules.upsert({ id: 'tick', kind: 'webhook', payload: { url: 'https://example.com/' }, every });
    const fired: FiredTick[] = [];
    const connections = Array.from({ length: 5 }, () => openRedis(redisUrl));
    const start = (n: number): ScheduleRunner => {
      const runner = new ScheduleRunner({ store: new RedisScheduleStore(connections[n] as typeof redis, queue.keys), onFire: (tick) => fired.push(tick) });
      runner.start();
      return runner;
    };
    const runners = [0, 1, 2, 3, 4].map(start);
    const ticks = 16;
    for (let restart = 0; restart < ticks; restart += 1) {
      await waitFor(async () => (await tickJobs(queue, 'tick')).length > restart, { timeoutMs: 10_000 });
      // Restart one runner per tick, its replacement up before it stops.
      const n = restart % 5;
      const old = runners[n] as ScheduleRunner;
      runners[n] = start(n);
      await within(old.stop(), 5_000, () => 'runner stop');
    }
    await within(Promise.all(runners.map((runner) => runner.stop())), 5_000, () => 'runners stop');
    const jobs = await tickJobs(queue, 'tick');
    const record = await schedules.get('tick');
    expect(jobs.length).toBeGreaterThanOrEqual(ticks);
    expectOneJobPerTick(jobs, every);
    expect(record?.runs).toBe(jobs.length);
    expect(fired.map((tick) => tick.jobId).sort()).toEqual(jobs.map((job) => job.jobId).sort());
    await Promise.all(connections.map((c) => c.quit()));
    await queue.close();
  });

  test('changing the payload and the interval while runners run loses no tick and doubles none', async ({ redis, redisUrl, queueName }) => {
    const queue = openQueue(redis, queueName);
    const schedules = fastSchedules(queue);
    const connections = [openRedis(redisUrl), openRedis(redisUrl)];
    const runners = connections.map((connection) => new ScheduleRunner({ store: new RedisScheduleStore(connection, queue.keys) }));
    runners.forEach((runner) => runner.start());
    const spec = (n: number, every: number) => ({ id: 'chg', kind: 'webhook', payload: { url: `https://example.com/${n}` }, every }) as const;
    await schedules.upsert(spec(0, 300));
    const changes: { at: number; every: number }[] = [];
    let seen = 0;
    for (let n = 1; n <= 8; n += 1) {
      // At least one tick between two changes: one counted after the last change was written.
      seen = await waitFor(async () => {
        const count = (await tickJobs(queue, 'chg')).length;
        return count > seen ? count : false;
      }, { timeoutMs: 10_000 });
      const every = n % 2 === 0 ? 300 : 250;
      await schedules.upsert(spec(n, every));
      changes.push({ at: (await schedules.get('chg'))?.updatedAt as number, every });
      seen = (await tickJobs(queue, 'chg')).length;
    }
    await waitFor(async () => (await tickJobs(queue, 'chg')).length >= 10, { timeoutMs: 10_000 });
    await within(Promise.all(runners.map((runner) => runner.stop())), 5_000, () => 'runners stop');
    const jobs = await tickJobs(queue, 'chg');
    const times = jobs.map((job) => job.tick);
    expect(new Set(times).size).toBe(times.length);
    // Between two jobs with no change between them, the next tick of the interval in force.
    // Across a change at time c: the old timing's tick due by c ran (its next tick lies after
    // c), and the new timing's first tick came at most one new interval after c.
    let inForce = 300;
    for (let i = 1; i < jobs.length; i += 1) {
      const { tick: prev, firedAt } = jobs[i - 1] as { tick: number; firedAt: number };
      const next = times[i] as number;
      const crossed = changes.filter((change) => change.at >= prev && change.at < next);
      if (crossed.length === 0) {
        expect(next).toBe(nextTickAfter(prev, firedAt, inForce));
        continue;
      }
      expect(crossed).toHaveLength(1);
      const change = crossed[0] as { at: number; every: number };
      expect(nextTickAfter(prev, firedAt, inForce)).toBeGreaterThan(change.at);
      expect(next - change.at).toBeLessThanOrEqual(change.every);
      inForce = change.every;
    }
    // A job carries the payload in force at its tick: the url's number never goes down.
    const numbers = jobs.map((job) => Number(String((job.payload as { url: string }).url).split('/').pop()));
    for (let i = 1; i < numbers.length; i += 1) expect(numbers[i]).toBeGreaterThanOrEqual(numbers[i - 1] as number);
    expect(changes).toHaveLength(8);
    await Promise.all(connections.map((c) => c.quit()));
    await queue.close();
  });

  test('catch-up after downtime: the first missed tick runs once, at once, and the next run is the first tick after now', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const schedules = fastSchedules(queue);
    await schedules.upsert({ id: 'late', kind: 'webhook', payload: { url: 'https://example.com/' }, every: 200 });
    // No runner for a while: five ticks or more go by.
    const { nextRunAt: missed } = (await schedules.get('late')) as { nextRunAt: number };
    await waitFor(async () => (await queue.stats()).nowMs > missed + 1_000);
    const runner = new ScheduleRunner({ store: new RedisScheduleStore(redis, queue.keys) });
    runner.start();
    await waitFor(async () => (await tickJobs(queue, 'late')).length >= 1);
    const after = (await schedules.get('late')) as { nextRunAt: number; lastRunAt: number; runs: number };
    await within(runner.stop(), 5_000, () => 'runner stop');
    const jobs = await tickJobs(queue, 'late');
    expect(jobs[0]?.tick).toBe(missed);
    // Every later job is for a tick after the catch-up; none for the ticks missed in between.
    const firedAt = Number((await queue.getJob(jobs[0]?.jobId as string))?.fields.enqueued_at_ms);
    expect(jobs.slice(1).every((job) => job.tick > firedAt)).toBe(true);
    expect(after.runs).toBe(jobs.length >= 1 ? after.runs : 0);
    expect((after.nextRunAt - missed) % 200).toBe(0);
    await queue.close();
  });

  test('runners back just before a tick run the catch-up and then the first tick a whole interval after it, never both back to back', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const schedules = fastSchedules(queue);
    const every = 300;
    await schedules.upsert({ id: 'back', kind: 'webhook', payload: { url: 'https://example.com/' }, every });
    const { nextRunAt: missed } = (await schedules.get('back')) as { nextRunAt: number };
    // No runner while two ticks or more go by; back between 40 and 120 ms (Redis time) before a tick.
    await waitFor(async () => {
      const now = (await queue.stats()).nowMs;
      const toTick = every - ((now - missed) % every);
      return now > missed + 2 * every && toTick >= 40 && toTick <= 120;
    });
    const runner = new ScheduleRunner({ store: new RedisScheduleStore(redis, queue.keys) });
    runner.start();
    await waitFor(async () => (await tickJobs(queue, 'back')).length >= 2);
    await within(runner.stop(), 5_000, () => 'runner stop');
    const [catchUp, next] = await tickJobs(queue, 'back');
    expect(catchUp?.tick).toBe(missed);
    // The tick due just after the catch-up is skipped with the other missed ones.
    expect(next?.tick).toBe(nextTickAfter(missed, catchUp?.firedAt as number, every));
    expect((next?.firedAt as number) - (catchUp?.firedAt as number)).toBeGreaterThanOrEqual(every);
    await queue.close();
  });
});
