import { nextRunAfter, type DueSchedule, type FireResult, type RunnerClock, type ScheduleStore, type ScheduleTiming } from '../src/index.ts';

/** Lets pending promise callbacks and I/O callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** A clock whose time moves only when told, running the timers that come due on the way. */
export class FakeClock implements RunnerClock {
  t = 0;
  #timers: { at: number; fn: () => void }[] = [];

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number): () => void {
    const timer = { at: this.t + ms, fn };
    this.#timers.push(timer);
    return () => {
      this.#timers = this.#timers.filter((t) => t !== timer);
    };
  }

  /** Moves to `target` ms, firing each timer at its own time and letting the runner act between. */
  async advanceTo(target: number): Promise<void> {
    for (;;) {
      await flush();
      const next = this.#timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.t = Math.max(this.t, next.at);
      this.#timers = this.#timers.filter((t) => t !== next);
      next.fn();
    }
    this.t = target;
    await flush();
  }
}

interface StoredSchedule {
  id: string;
  revision: number;
  nextRunMs: number | null;
  timing: ScheduleTiming;
  status: 'active' | 'paused' | 'done';
  runs: number;
  limit: number;
}

/**
 * The Redis store's semantics in memory (scripts/schedule-due.lua and schedule-fire.lua): the
 * same check-and-set, on a "Redis time" that is `epochMs` plus the fake clock's time.
 */
export class FakeScheduleStore implements ScheduleStore {
  readonly schedules = new Map<string, StoredSchedule>();
  /** Every job enqueued: its id, schedule, tick and Redis time of the fire. */
  readonly jobs: { id: string; scheduleId: string; tickMs: number; firedAtMs: number }[] = [];
  failNext = 0;
  #revision = 0;

  readonly clock: FakeClock;
  readonly epochMs: number;

  constructor(clock: FakeClock, epochMs: number) {
    this.clock = clock;
    this.epochMs = epochMs;
  }

  redisNow(): number {
    return this.epochMs + this.clock.t;
  }

  /** Adds a schedule whose next run is `nextRunMs` (as an upsert would have written it). */
  put(id: string, timing: ScheduleTiming, nextRunMs: number, limit = 0): void {
    this.#revision += 1;
    this.schedules.set(id, { id, revision: this.#revision, nextRunMs, timing, status: 'active', runs: 0, limit });
  }

  async due(max: number): Promise<{ nowMs: number; schedules: DueSchedule[] }> {
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw new Error('Redis away');
    }
    const active = [...this.schedules.values()].filter((s) => s.status === 'active' && s.nextRunMs !== null);
    active.sort((a, b) => (a.nextRunMs as number) - (b.nextRunMs as number));
    return {
      nowMs: this.redisNow(),
      schedules: active.slice(0, max).map((s) => ({ id: s.id, revision: String(s.revision), nextRunMs: s.nextRunMs as number, timing: s.timing })),
    };
  }

  async fire(schedule: DueSchedule, followingMs: number | null, minGapMs = 0): Promise<FireResult> {
    // A round trip's worth of interleaving with other runners, without letting fake time pass.
    for (let i = 0; i < 3; i += 1) await Promise.resolve();
    const now = this.redisNow();
    const s = this.schedules.get(schedule.id);
    if (!s || String(s.revision) !== schedule.revision || s.nextRunMs !== schedule.nextRunMs || s.status !== 'active') return { outcome: 'stale', nowMs: now, jobId: undefined };
    if (schedule.nextRunMs > now) return { outcome: 'early', nowMs: now, jobId: undefined };
    if (followingMs !== null && followingMs < now + Math.max(1, minGapMs)) return { outcome: 'behind', nowMs: now, jobId: undefined };
    const id = `sched:${s.id}:${schedule.nextRunMs}`;
    if (!this.jobs.some((job) => job.id === id)) this.jobs.push({ id, scheduleId: s.id, tickMs: schedule.nextRunMs, firedAtMs: now });
    s.runs += 1;
    if (followingMs === null || (s.limit > 0 && s.runs >= s.limit)) {
      s.status = 'done';
      s.nextRunMs = null;
    } else {
      s.nextRunMs = followingMs;
    }
    return { outcome: 'fired', nowMs: now, jobId: id };
  }
}

/** The first tick of `timing` after `afterMs`, as an upsert would compute it. */
export function firstRun(timing: ScheduleTiming, afterMs: number): number {
  const next = nextRunAfter(timing, afterMs, afterMs);
  if (next === null) throw new Error('no run');
  return next;
}
