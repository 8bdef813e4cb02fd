import { expect } from 'vitest';
import type { Queue, PayloadTypesOf } from '../src/index.ts';
import { Schedules } from '../src/schedules/schedules.ts';
import type { kinds } from './fixtures.ts';

type P = PayloadTypesOf<typeof kinds>;

/** The queue's schedules with a test floor for intervals, so a test runs many ticks quickly. */
export function fastSchedules(queue: Queue<P>): Schedules<P> {
  return new Schedules(queue.partitions[0]!.ctx, { minEveryMs: 100 });
}

/** The ticks of the schedule's jobs in pending, oldest first. */
export async function tickJobs(queue: Queue<P>, id: string): Promise<{ tick: number; firedAt: number; payload: unknown; jobId: string }[]> {
  const jobs = await queue.list('pending', { limit: 1_000 });
  return jobs
    .filter((job) => job.id.startsWith(`sched:${id}:`))
    .map((job) => ({ tick: Number(job.fields.scheduled_for_ms), firedAt: Number(job.fields.enqueued_at_ms), payload: job.payload, jobId: job.id }))
    .sort((a, b) => a.tick - b.tick);
}

/**
 * The interval schedule's next tick after one at `tick` that ran at `firedAt`: the next on the
 * grid, or, when the tick ran so late that the next had passed (downtime, or a runner stalled
 * past later ticks), the first at least one interval after it ran, since catch-up runs only the
 * first missed tick and never runs back to back with the tick after it.
 */
export function nextTickAfter(tick: number, firedAt: number, every: number): number {
  if (firedAt < tick + every) return tick + every;
  return tick + every * Math.ceil((firedAt + every - tick) / every);
}

/**
 * One job per tick of an interval schedule: no tick twice, and none missed but what the catch-up
 * policy skips (each tick the first after the previous one ran, see {@link nextTickAfter}).
 */
export function expectOneJobPerTick(jobs: readonly { tick: number; firedAt: number }[], every: number): void {
  const times = jobs.map((job) => job.tick);
  expect(new Set(times).size).toBe(times.length);
  for (let i = 1; i < jobs.length; i += 1) {
    const prev = jobs[i - 1] as { tick: number; firedAt: number };
    expect(jobs[i]?.tick).toBe(nextTickAfter(prev.tick, prev.firedAt, every));
  }
}
