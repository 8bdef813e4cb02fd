import { JobsError, JOBS_ERROR_CODES, type ClaimedJob } from '@jobs/core';
import { pause } from './clock.ts';
import type { ClaimLoop } from './claim-loop.ts';
import type { Heartbeats } from './heartbeats.ts';
import type { HistoryCounts } from './history-counts.ts';
import type { Lane } from './lane.ts';
import type { ReclaimSweeper } from './reclaim-sweeper.ts';
import type { Slots, WaitingJob } from './slots.ts';
import type { WorkerContext } from './worker-context.ts';

/** What a worker's shutdown stops, waits for and closes. */
export interface ShutdownParts {
  readonly context: WorkerContext;
  /** Aborts the context's stop signal. */
  readonly stop: AbortController;
  readonly slots: Slots;
  readonly claims: ClaimLoop;
  readonly lanes: readonly Lane[];
  readonly sweeper: ReclaimSweeper;
  /** The delayed-job notices' listener. */
  readonly notices: { close(): Promise<void> };
  /** The heartbeats into the worker registry, if on: they go on until the jobs are handed back. */
  readonly heartbeats: Heartbeats | undefined;
  /** The counts for the metrics history, if on: the last of them are sent once no job runs. */
  readonly history: HistoryCounts | undefined;
  /** Closes the connections the worker opened. */
  closeQueue(): Promise<void>;
}

/**
 * Stops claiming, lets running jobs finish for up to `graceMs`, then aborts the rest and hands
 * them back to pending at once, along with every job claimed but not started (a claim or a
 * completion batch in flight when the grace period ends brings some): none starts once it is
 * over. Then leaves the worker registry, closes what the worker opened and emits `closed`.
 */
export async function shutDown(parts: ShutdownParts, graceMs: number): Promise<void> {
  const { slots, claims } = parts;
  const { log, clock, events } = parts.context;
  log.info({ running: slots.running.size, graceMs }, 'worker closing');
  parts.stop.abort();
  claims.abandonStart();
  parts.sweeper.cancelNext();
  slots.wakeWaiters();
  // One grace period for both: a claim in flight (it ends at once unless Redis is away) and
  // the jobs running.
  const graceOver = new AbortController();
  const grace = pause(clock, graceMs, graceOver.signal);
  let graceEnded = false;
  void grace.then(() => {
    graceEnded = true;
  });
  await Promise.race([claims.loopEnded, grace]);
  // Until nothing runs or the grace period is over: a batch of completions in flight may still
  // bring jobs it claimed, and those run too.
  while (!graceEnded && slots.running.size > 0) {
    await Promise.race([Promise.allSettled([...slots.running.values()].map((execution) => execution.done)), grace]);
  }
  graceOver.abort();
  slots.stopStarting();
  const unfinished = [...slots.running.values()];
  for (const execution of unfinished) execution.handedBack = true;
  await handBack(parts, [...unfinished, ...slots.takeWaiting()]);
  for (const execution of unfinished) execution.abort(new JobsError(JOBS_ERROR_CODES.CLOSED, 'the worker is shutting down'));
  // A completion batch in flight when the grace period ended settles with its executions, and
  // may bring jobs it claimed; so may a claim of the fetch loop's or one made alongside another
  // lane's batch. None of them starts now: they are handed back too.
  await Promise.allSettled(unfinished.map((execution) => execution.done));
  await claims.allEnded();
  await handBack(parts, slots.takeWaiting());
  await Promise.all(parts.lanes.map((lane) => lane.leases.stop()));
  await parts.sweeper.ended();
  await parts.history?.stop();
  // Out of the registry at once, now that it runs nothing; a failure leaves it to its TTL.
  await parts.heartbeats?.stop().catch((error: unknown) => parts.context.reportError(error, 'could not leave the worker registry; it drops out when its heartbeat expires'));
  await parts.notices.close();
  await parts.closeQueue();
  log.info({}, 'worker closed');
  events.emit('closed');
}

/** Hands `jobs` (running ones whose grace period is over, claimed ones not started) back to pending, one call per lane. */
async function handBack(parts: ShutdownParts, jobs: readonly WaitingJob[]): Promise<void> {
  const byLane = new Map<Lane, ClaimedJob[]>();
  for (const { job, lane } of jobs) {
    const laneJobs = byLane.get(lane);
    if (laneJobs) laneJobs.push(job);
    else byLane.set(lane, [job]);
  }
  for (const [lane, laneJobs] of byLane) {
    try {
      const released = await lane.queue.release(laneJobs);
      parts.context.log.info({ partition: lane.queue.name, released: released.filter(Boolean).length }, 'handed unfinished jobs back to pending');
    } catch (error) {
      // They come back anyway once their leases expire, which no one renews now.
      parts.context.reportError(error, 'could not hand unfinished jobs back; they return when their leases expire');
    }
  }
}
