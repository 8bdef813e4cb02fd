import { defineKinds, Queue, type Kinds, type RedisClient, type ScheduleRecord, type ScheduleSpec, type UpsertScheduleResult } from '@jobs/core';
import { partitionName, recordedPartitions } from '@jobs/core/internal';

const empty = defineKinds({});

/**
 * Runs `action` on queue `queue`'s schedules through `client` (which stays open). A partitioned
 * queue keeps its schedules in partition 0, as its producer does.
 */
async function withSchedules<T, P = unknown>(client: RedisClient, queue: string, action: (queue: Queue<P>) => Promise<T>, kinds: Kinds<P> = empty as unknown as Kinds<P>): Promise<T> {
  const holder = (await recordedPartitions(client, queue)) > 1 ? partitionName(queue, 0) : queue;
  const opened = new Queue<P>({ redis: client, queue: holder, kinds });
  try {
    return await action(opened);
  } finally {
    await opened.close();
  }
}

/**
 * The admin verbs on a queue's schedules, for the `jobsctl schedules` commands and operators'
 * scripts. Upserting needs the queue's kinds (the payload is checked against its kind's schema);
 * the others do not. A partitioned queue's name stands for its partition 0, where its producer
 * keeps its schedules.
 */
export const scheduleAdmin = {
  /** Schedule `id` of `queue`, or null. */
  get: (client: RedisClient, queue: string, id: string): Promise<ScheduleRecord | null> => withSchedules(client, queue, (q) => q.schedules.get(id)),
  /** Every schedule of `queue` (up to 1000), in id order, with its status and next run. */
  list: (client: RedisClient, queue: string): Promise<ScheduleRecord[]> => withSchedules(client, queue, (q) => q.schedules.list({ limit: 1_000 })),
  /** Creates or replaces a schedule; `kinds` are the queue's kinds, from `defineKinds`. */
  upsert: <P>(client: RedisClient, queue: string, kinds: Kinds<P>, spec: ScheduleSpec<P>): Promise<UpsertScheduleResult> => withSchedules(client, queue, (q) => q.schedules.upsert(spec), kinds),
  /** Pauses a schedule; true when it was active. */
  pause: (client: RedisClient, queue: string, id: string): Promise<boolean> => withSchedules(client, queue, (q) => q.schedules.pause(id)),
  /** Resumes a paused schedule at its first tick after now; true when it was paused. */
  resume: (client: RedisClient, queue: string, id: string): Promise<boolean> => withSchedules(client, queue, (q) => q.schedules.resume(id)),
  /** Removes a schedule; true when it existed. */
  remove: (client: RedisClient, queue: string, id: string): Promise<boolean> => withSchedules(client, queue, (q) => q.schedules.remove(id)),
};
