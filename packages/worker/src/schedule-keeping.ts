import { RedisScheduleStore, ScheduleRunner, type ChannelListener, type Partition } from '@jobs/core';

/**
 * Keeps the schedules of a worker's queues running: one runner per queue (the queue, or each
 * partition), all of them racing every other worker's and reclaimer's on each tick, which makes
 * one job whoever wins (see ScheduleRunner). Their wakes come over the worker's pub/sub
 * connection, `subscriber`. Returns a function that stops them.
 */
export function keepSchedules(
  queues: readonly Pick<Partition<unknown>, 'client' | 'keys' | 'options'>[],
  subscriber: ChannelListener,
  onError: (error: unknown) => void,
): () => Promise<void> {
  const runners = queues.map((queue) => {
    const log = queue.options.eventLog;
    return new ScheduleRunner({ store: new RedisScheduleStore(queue.client, queue.keys, log === false ? 0 : log.maxLen, subscriber, queue.options.metricsHistory), onError });
  });
  for (const runner of runners) runner.start();
  return async () => {
    await Promise.all(runners.map((runner) => runner.stop()));
  };
}
