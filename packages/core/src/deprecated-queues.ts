import { Queue } from './queue.ts';
import type { QueueConfig } from './queue-options.ts';

/**
 * The names the queue classes had before {@link Queue}, kept for one release. `JobQueue` was
 * the plain queue and `PartitionedQueue` the partitioned one; `Queue` is both (`partitions`
 * defaults to 1).
 */

/** @deprecated use Queue */
export const JobQueue = Queue;
/** @deprecated use Queue */
export type JobQueue<P> = Queue<P>;

/** @deprecated use Queue (with `partitions`) */
export const PartitionedQueue = Queue;
/** @deprecated use Queue (with `partitions`) */
export type PartitionedQueue<P> = Queue<P>;

/** @deprecated use QueueConfig */
export type JobQueueOptions<P> = QueueConfig<P>;
/** @deprecated use QueueConfig (with `partitions`) */
export type PartitionedQueueOptions<P> = QueueConfig<P> & { partitions: number };
