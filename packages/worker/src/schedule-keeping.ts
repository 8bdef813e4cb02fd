import { RedisScheduleStore, ScheduleRunner } from '@jobs/core';
import type { Lane } from './lane.ts';

/**
 * Keeps the schedules of a worker's queues running: one runner per lane (the queue, or each
 * partition), all of them racing every other worker's and reclaimer's on each tick, which makes
 * one job whoever wins (see ScheduleRunner). Returns a function that stops them.
 */
export function keepSchedules(lanes: readonly Lane[], onError: (error: unknown) => void): () => Promise<void> {
  const runners = lanes.map((lane) => new ScheduleRunner({ store: new RedisScheduleStore(lane.queue.client, lane.queue.keys), onError }));
  for (const runner of runners) runner.start();
  return async () => {
    await Promise.all(runners.map((runner) => runner.stop()));
  };
}
