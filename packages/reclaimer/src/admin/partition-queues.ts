import { Queue } from '@jobs/core';

/**
 * Each partition of `queue` as a queue of its own (partition `i` is the ordinary queue
 * `NAME:p<i>`), for the admin verbs that run on one partition at a time: stats per partition,
 * redrives, purges, exports. A plain queue is its own only partition. They share its connection.
 */
export function partitionQueues<P>(queue: Queue<P>, options: { eventLog?: boolean; workerId?: string } = {}): readonly Queue<P>[] {
  if (queue.partitions.length === 1) return [queue];
  return queue.partitions.map((partition) => new Queue<P>({ redis: queue.client, queue: partition.name, kinds: queue.kinds, ...options }));
}
