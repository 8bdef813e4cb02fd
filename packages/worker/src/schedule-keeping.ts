import { RedisScheduleStore, ScheduleRunner, type JobQueue, type ScheduleStore } from '@jobs/core';
import type { SharedSubscriber } from './shared-subscriber.ts';

/**
 * Keeps the schedules of a worker's queues running: one runner per queue (the queue, or each
 * partition), all of them racing every other worker's and reclaimer's on each tick, which makes
 * one job whoever wins (see ScheduleRunner). Their wakes come over the worker's pub/sub
 * connection, `subscriber`. Returns a function that stops them.
 */
export function keepSchedules(
  queues: readonly Pick<JobQueue<unknown>, 'client' | 'keys' | 'options'>[],
  subscriber: SharedSubscriber,
  onError: (error: unknown) => void,
): () => Promise<void> {
  const runners = queues.map((queue) => {
    const log = queue.options.eventLog;
    const store = new RedisScheduleStore(queue.client, queue.keys, log === false ? 0 : log.maxLen);
    const shared: ScheduleStore = {
      due: (max) => store.due(max),
      fire: (schedule, followingMs) => store.fire(schedule, followingMs),
      watch: (onWake, onWatchError) => {
        let stopped = false;
        const wake = (): void => {
          if (!stopped) onWake();
        };
        subscriber.listen([queue.keys.schedulesWake], wake, wake).catch((error: unknown) => {
          if (!stopped) onWatchError(error);
        });
        return async () => {
          stopped = true;
        };
      },
    };
    return new ScheduleRunner({ store: shared, onError });
  });
  for (const runner of runners) runner.start();
  return async () => {
    await Promise.all(runners.map((runner) => runner.stop()));
  };
}
