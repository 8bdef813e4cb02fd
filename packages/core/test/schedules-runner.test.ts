import { Cron } from 'croner';
import { afterEach, describe, expect, test } from 'vitest';
import { ScheduleRunner, type ScheduleTiming } from '../src/index.ts';
import { FakeClock, FakeScheduleStore, firstRun, flush } from './schedules-fakes.ts';

const EPOCH = Date.parse('2026-06-01T00:00:00.000Z');
const every = (ms: number): ScheduleTiming => ({ cron: '', tz: '', everyMs: ms, startAtMs: 0, endAtMs: 0 });
const cron = (pattern: string, tz: string): ScheduleTiming => ({ cron: pattern, tz, everyMs: 0, startAtMs: 0, endAtMs: 0 });

const runners: ScheduleRunner[] = [];
function startRunner(store: FakeScheduleStore, clock: FakeClock, options: { recheckMs?: number; onError?: (error: unknown) => void } = {}): ScheduleRunner {
  const runner = new ScheduleRunner({ store, clock, recheckMs: options.recheckMs ?? 60_000, retryMs: 500, ...(options.onError && { onError: options.onError }) });
  runners.push(runner);
  runner.start();
  return runner;
}

afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.stop()));
});

describe('ScheduleRunner (fake clock, in-memory store)', () => {
  test('fires each tick of an interval once, when it is due and not before', async () => {
    const clock = new FakeClock();
    const store = new FakeScheduleStore(clock, EPOCH);
    store.put('poll', every(1_000), EPOCH + 1_000);
    startRunner(store, clock);
    await clock.advanceTo(999);
    expect(store.jobs).toEqual([]);
    await clock.advanceTo(10_000);
    expect(store.jobs.map((job) => job.tickMs - EPOCH)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => n * 1_000));
    // With no delay in the store, each job is enqueued at its tick exactly.
    expect(store.jobs.every((job) => job.firedAtMs === job.tickMs)).toBe(true);
  });

  test('two runners on one schedule make one job per tick', async () => {
    const clock = new FakeClock();
    const store = new FakeScheduleStore(clock, EPOCH);
    store.put('poll', every(1_000), EPOCH + 1_000);
    startRunner(store, clock);
    startRunner(store, clock);
    await clock.advanceTo(20_000);
    const ticks = store.jobs.map((job) => job.tickMs);
    expect(ticks).toHaveLength(20);
    expect(new Set(ticks).size).toBe(20);
  });

  test('after downtime, runs the first missed tick once, at once, and the next at the first tick after now', async () => {
    const clock = new FakeClock();
    const store = new FakeScheduleStore(clock, EPOCH);
    // The schedule's next run is ten ticks in the past: nobody ran it meanwhile.
    store.put('poll', every(1_000), EPOCH - 10_000);
    startRunner(store, clock);
    await clock.advanceTo(0);
    expect(store.jobs.map((job) => job.tickMs - EPOCH)).toEqual([-10_000]);
    expect(store.schedules.get('poll')?.nextRunMs).toBe(EPOCH + 1_000);
    await clock.advanceTo(1_000);
    expect(store.jobs.map((job) => job.tickMs - EPOCH)).toEqual([-10_000, 1_000]);
  });

  test('runners restarted just before a tick run one catch-up, then the first tick a period after it: never two runs back to back', async () => {
    const clock = new FakeClock();
    const store = new FakeScheduleStore(clock, EPOCH);
    store.put('poll', every(1_000), EPOCH + 1_000);
    const first = [startRunner(store, clock), startRunner(store, clock)];
    await clock.advanceTo(2_500);
    await Promise.all(first.map((runner) => runner.stop()));
    expect(store.jobs.map((job) => job.tickMs - EPOCH)).toEqual([1_000, 2_000]);
    // Down from 2.5 s to 5.99 s: the restart lands 10 ms before the tick at 6 s.
    await clock.advanceTo(5_990);
    startRunner(store, clock);
    startRunner(store, clock);
    await clock.advanceTo(9_000);
    const ran = store.jobs.map((job) => ({ tick: job.tickMs - EPOCH, at: job.firedAtMs - EPOCH }));
    // The first missed tick runs once, at once; 6 s (10 ms later) does not run too: the next is
    // the first tick at least one interval after the catch-up.
    expect(ran).toEqual([
      { tick: 1_000, at: 1_000 },
      { tick: 2_000, at: 2_000 },
      { tick: 3_000, at: 5_990 },
      { tick: 7_000, at: 7_000 },
      { tick: 8_000, at: 8_000 },
      { tick: 9_000, at: 9_000 },
    ]);
  });

  test('a cron schedule restarted just before a tick runs one catch-up, then the first tick a period after it', async () => {
    const clock = new FakeClock();
    const start = Date.parse('2026-06-01T06:00:00.000Z');
    const store = new FakeScheduleStore(clock, start);
    const daily = cron('0 8 * * *', 'UTC');
    // Down for two days: the 08:00 of 1 June was missed, and the runner comes back at 07:59:59.990 on 3 June.
    store.put('digest', daily, firstRun(daily, start));
    const back = Date.parse('2026-06-03T07:59:59.990Z') - start;
    await clock.advanceTo(back);
    startRunner(store, clock, { recheckMs: 3_600_000 });
    for (let t = back; t <= back + 2 * 86_400_000; t += 3_600_000) await clock.advanceTo(t);
    expect(store.jobs.map((job) => [new Date(job.tickMs).toISOString(), new Date(job.firedAtMs).toISOString()])).toEqual([
      ['2026-06-01T08:00:00.000Z', '2026-06-03T07:59:59.990Z'],
      ['2026-06-04T08:00:00.000Z', '2026-06-04T08:00:00.000Z'],
    ]);
  });

  test('a wake makes a sleeping runner look again at once', async () => {
    const clock = new FakeClock();
    const store = new FakeScheduleStore(clock, EPOCH);
    const runner = startRunner(store, clock, { recheckMs: 60_000 });
    await clock.advanceTo(100);
    store.put('soon', every(1_000), EPOCH + 500);
    runner.wake();
    await clock.advanceTo(500);
    expect(store.jobs.map((job) => job.tickMs - EPOCH)).toEqual([500]);
  });

  test('without a wake, a new schedule is noticed at the next recheck', async () => {
    const clock = new FakeClock();
    const store = new FakeScheduleStore(clock, EPOCH);
    startRunner(store, clock, { recheckMs: 5_000 });
    await clock.advanceTo(100);
    store.put('soon', every(1_000), EPOCH + 500);
    await clock.advanceTo(4_999);
    expect(store.jobs).toEqual([]);
    await clock.advanceTo(5_000);
    // The tick at 500 runs once, late; those missed meanwhile are skipped, and the next is the
    // first a whole interval after the catch-up (5.5 s would run 500 ms after it).
    expect(store.jobs.map((job) => job.tickMs - EPOCH)).toEqual([500]);
    expect(store.schedules.get('soon')?.nextRunMs).toBe(EPOCH + 6_500);
  });

  test('a store error is reported and the runner tries again', async () => {
    const clock = new FakeClock();
    const store = new FakeScheduleStore(clock, EPOCH);
    store.put('poll', every(1_000), EPOCH + 1_000);
    store.failNext = 2;
    const errors: unknown[] = [];
    startRunner(store, clock, { onError: (error) => errors.push(error) });
    await clock.advanceTo(1_000);
    expect(errors).toHaveLength(2);
    expect(store.jobs.map((job) => job.tickMs - EPOCH)).toEqual([1_000]);
  });

  test('a stopped runner fires nothing more', async () => {
    const clock = new FakeClock();
    const store = new FakeScheduleStore(clock, EPOCH);
    store.put('poll', every(1_000), EPOCH + 1_000);
    const runner = startRunner(store, clock);
    await clock.advanceTo(1_000);
    await runner.stop();
    await clock.advanceTo(5_000);
    expect(store.jobs).toHaveLength(1);
  });

  test('a run limit ends the schedule', async () => {
    const clock = new FakeClock();
    const store = new FakeScheduleStore(clock, EPOCH);
    store.put('thrice', every(1_000), EPOCH + 1_000, 3);
    startRunner(store, clock);
    await clock.advanceTo(10_000);
    expect(store.jobs).toHaveLength(3);
    expect(store.schedules.get('thrice')?.status).toBe('done');
  });
});

describe('daylight saving time (Europe/Paris), as croner says, each tick once', () => {
  // Redis time is the fake clock's, starting the day before each change.
  const cases = [
    { name: 'fall-back, 2026-10-25', from: '2026-10-24T00:00:00Z', to: '2026-10-27T00:00:00Z' },
    { name: 'spring-forward, 2026-03-29', from: '2026-03-28T00:00:00Z', to: '2026-03-31T00:00:00Z' },
  ];
  // A fixed-time job (02:30 happens twice at fall-back, not at all at spring-forward), and
  // interval jobs (every half hour; every hour at :30, through the repeated hour).
  for (const { name, from, to } of cases) {
    for (const pattern of ['30 2 * * *', '*/30 * * * *', '30 * * * *']) {
      test(`${name}: "${pattern}"`, async () => {
        const clock = new FakeClock();
        const start = Date.parse(from);
        const end = Date.parse(to);
        const store = new FakeScheduleStore(clock, start);
        const timing = cron(pattern, 'Europe/Paris');
        store.put('dst', timing, firstRun(timing, start));
        startRunner(store, clock, { recheckMs: 3_600_000 });
        // Hour by hour: the runner's timers fire on the way.
        for (let t = 0; t <= end - start; t += 3_600_000) await clock.advanceTo(t);
        await flush();
        const expected = new Cron(pattern, { timezone: 'Europe/Paris' }).nextRuns(500, new Date(start)).map((d) => d.getTime()).filter((t) => t <= end);
        const fired = store.jobs.map((job) => job.tickMs);
        expect(fired.map((t) => new Date(t).toISOString())).toEqual(expected.map((t) => new Date(t).toISOString()));
        expect(store.jobs.every((job) => job.firedAtMs === job.tickMs)).toBe(true);
      });
    }
  }
});
