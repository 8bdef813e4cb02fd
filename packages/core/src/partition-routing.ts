import type { QueueContext } from './commands/queue-context.ts';
import type { EnqueueOptions } from './enqueue-options.ts';
import { InvalidArgumentError } from './errors.ts';
import type { EventFollower, FollowOptions } from './event-follower.ts';
import type { ClaimedJob } from './job-record.ts';
import { assertJobId, queueKeys, type QueueKeys } from './keys.ts';
import { assertOptionKeys } from './option-keys.ts';
import { Partition } from './partition.ts';
import { MAX_PARTITIONS, partitionIdSuffix, partitionNames, partitionOfId, partitionOfKey } from './partitions.ts';
import { QUEUE_CONFIG_KEYS, resolveQueueOptions, type QueueConfig } from './queue-options.ts';
import { closeClient, connectRedis, withRedisErrors, type RedisClient } from './redis-connection.ts';
import { assertWholeNumber } from './whole-number.ts';

/**
 * Jobs without a key sent to one partition before the next one's turn: 32 full enqueue batches,
 * so consecutive script calls go to one master rather than each to another (measurements in
 * docs/BENCHMARKS.md). At a hot queue's rate a run lasts milliseconds, so the load still
 * alternates over the masters.
 */
const ROUND_ROBIN_RUN = 1024;

/**
 * Where an enqueue goes: by `partitionKey`, else by `group`, else by the `dedupe` or `unique`
 * key (a key holds within one partition), else by `idempotencyKey`, else round robin.
 */
export interface PartitionedEnqueueOptions extends EnqueueOptions {
  /**
   * Jobs with the same key go to the same partition (a stable hash of the key), so they are
   * claimed in the order they were enqueued. Without it, jobs go round robin, 1024 to a
   * partition before the next one's turn, from a partition picked at random per client (an
   * `idempotencyKey` picks the partition instead, so a resent enqueue meets its first copy).
   */
  partitionKey?: string;
}

/** The `dedupe` or `unique` key of an enqueue's options, when it is one a partition can be picked by (checked later). */
function dedupeKeyOf(options: PartitionedEnqueueOptions | undefined): string | undefined {
  const key = (options?.dedupe ?? options?.unique)?.key;
  return typeof key === 'string' && key.length > 0 && key.length <= 512 ? key : undefined;
}

/**
 * Which partition of a queue a call goes to, and the check that the partition count recorded
 * in Redis is this client's. With one partition every route is that partition (`sole`), so
 * callers on the job path skip routing altogether.
 */
export class PartitionRouting<P> {
  readonly name: string;
  readonly keys: QueueKeys;
  readonly client: RedisClient;
  readonly partitions: readonly Partition<P>[];
  /** The only partition of a plain queue; undefined when there are several. */
  readonly sole: Partition<P> | undefined;
  /** Every partition's context, in order. */
  readonly contexts: readonly QueueContext<P>[];
  /** Per partition, a list holding its context alone (reused, so routing allocates nothing). */
  readonly #alone: readonly (readonly QueueContext<P>[])[];
  /**
   * Round robin: jobs sent to the current partition so far, and which one it is. Each client
   * starts at a partition of its own (at random): a fleet of producers that each send a few
   * jobs would otherwise all fill partition 0.
   */
  #run = 0;
  #next: number;
  #layout: Promise<void> | undefined;
  readonly #owned: boolean;
  #closing: Promise<void> | undefined;

  constructor(name: string, client: RedisClient, owned: boolean, partitions: readonly Partition<P>[]) {
    this.#owned = owned;
    this.name = name;
    this.keys = queueKeys(name);
    this.client = client;
    this.partitions = partitions;
    this.sole = partitions.length === 1 ? partitions[0] : undefined;
    this.contexts = partitions.map((partition) => partition.ctx);
    this.#alone = this.contexts.map((ctx) => [ctx]);
    this.#next = Math.floor(Math.random() * partitions.length);
  }

  /**
   * Records the partition count in Redis (first user) or checks it against the recorded one.
   * Throws `JOBS_INVALID_ARGUMENT` (field `partitions`) on a mismatch: a producer writing to
   * partitions no worker reads would strand jobs.
   */
  ensureLayout(): Promise<void> {
    // One partition is the plain queue: nothing to record (its own check refuses a partitioned name).
    if (this.sole !== undefined) return Promise.resolve();
    this.#layout ??= (async () => {
      const count = String(this.partitions.length);
      const recorded = await withRedisErrors(() => this.client.set(this.keys.partitions, count, 'NX', 'GET'));
      if (recorded !== null && recorded !== count) {
        throw new InvalidArgumentError('partitions', `queue "${this.name}" has ${recorded} partition(s) in Redis (${this.keys.partitions}); this client was given ${count}`);
      }
    })().catch((error: unknown) => {
      this.#layout = undefined;
      throw error;
    });
    return this.#layout;
  }

  /** The partition an enqueue with these options goes to. */
  partitionFor(options?: PartitionedEnqueueOptions): Partition<P> {
    const count = this.partitions.length;
    let index: number;
    if (options?.partitionKey !== undefined) index = partitionOfKey(options.partitionKey, count);
    // A group's jobs share a partition, where its limits and turns hold.
    else if (typeof options?.group === 'string' && options.group.length > 0) index = partitionOfKey(options.group, count);
    else if (dedupeKeyOf(options) !== undefined) index = partitionOfKey(dedupeKeyOf(options) as string, count);
    else if (typeof options?.idempotencyKey === 'string' && options.idempotencyKey.length > 0) index = partitionOfKey(options.idempotencyKey, count);
    else {
      // Round robin in runs (see ROUND_ROBIN_RUN): the enqueues of one tick still fill whole
      // script calls (see the partition's enqueue batch), and consecutive calls go to one master.
      index = this.#next;
      this.#run += 1;
      if (this.#run >= ROUND_ROBIN_RUN) {
        this.#run = 0;
        this.#next = (this.#next + 1) % count;
      }
    }
    return this.partitions[index] as Partition<P>;
  }

  /** The partition whose id this is, when the id says (ids this package makes do). */
  partitionOf(id: string): Partition<P> | undefined {
    if (this.sole !== undefined) return this.sole;
    const index = partitionOfId(id, this.partitions.length);
    return index === undefined ? undefined : this.partitions[index];
  }

  /** The partition of a claimed job, for a verb fenced by its claim. */
  holderOf(job: ClaimedJob): Partition<P> {
    const id = (job as ClaimedJob | undefined)?.id;
    const partition = this.sole ?? (typeof id === 'string' ? this.partitionOf(id) : undefined);
    if (partition === undefined) throw new InvalidArgumentError('job', `job ${JSON.stringify(id)} names no partition of queue "${this.name}": send it through the partition that claimed it`);
    return partition;
  }

  /** The partition of every job of a batch (jobs, or items with a job), which must share one; partition 0 for none. */
  holderOfAll(items: readonly (ClaimedJob | { job: ClaimedJob })[]): Partition<P> {
    if (this.sole !== undefined) return this.sole;
    const jobs = items.map((item) => (typeof item === 'object' && item !== null && 'job' in item ? item.job : item));
    const first = jobs.length === 0 ? (this.partitions[0] as Partition<P>) : this.holderOf(jobs[0] as ClaimedJob);
    for (const job of jobs) {
      if (this.holderOf(job) !== first) throw new InvalidArgumentError('jobs', `the jobs are of more than one partition of queue "${this.name}": send each partition's jobs on their own`);
    }
    return first;
  }

  /** The contexts that may hold job `id`: its partition's, or every one for an id made elsewhere. */
  holders(id: string): readonly QueueContext<P>[] {
    if (this.sole !== undefined) return this.contexts;
    assertJobId(id);
    const index = partitionOfId(id, this.partitions.length);
    return index === undefined ? this.contexts : (this.#alone[index] as readonly QueueContext<P>[]);
  }

  /** The plain queue's only partition, for a verb that runs on one partition at a time. */
  whole(verb: string): Partition<P> {
    if (this.sole !== undefined) return this.sole;
    throw new InvalidArgumentError('partitions', `queue "${this.name}" has ${this.partitions.length} partitions: ${verb} runs on one partition at a time (queue.partitions)`);
  }

  /** A follower of the event log of one partition: a partitioned queue needs `partition` (0-based). */
  async follow(options: FollowOptions & { partition?: number }): Promise<EventFollower> {
    assertOptionKeys<FollowOptions & { partition?: number }>('options', options, { from: true, batch: true, signal: true, partition: true });
    const { partition, ...follow } = options;
    if (partition === undefined && this.sole === undefined) {
      throw new InvalidArgumentError('partition', `queue "${this.name}" has ${this.partitions.length} partitions, each with its own event log: pick one (0 to ${this.partitions.length - 1})`);
    }
    const index = assertWholeNumber('partition', partition ?? 0, 0, this.partitions.length - 1);
    return (this.partitions[index] as Partition<P>).conn.follow(follow);
  }

  /** Closes every partition, and the connection if the queue opened it (once, however often it is called). */
  close(): Promise<void> {
    this.#closing ??= Promise.all(this.partitions.map((partition) => partition.close())).then(() => (this.#owned ? closeClient(this.client) : undefined));
    return this.#closing;
  }
}

/**
 * Checks a queue's options and opens its partitions on one connection (opened here, or the
 * caller's). Everything is checked before the connection opens, so bad options leave nothing open.
 */
export function openPartitions<P>(options: QueueConfig<P>): PartitionRouting<P> {
  assertOptionKeys<QueueConfig<P>>('options', options, QUEUE_CONFIG_KEYS);
  const count = assertWholeNumber('partitions', options.partitions ?? 1, 1, MAX_PARTITIONS);
  if (count > 1 && options.idSuffix !== undefined) throw new InvalidArgumentError('options.idSuffix', 'not allowed with more than one partition: each partition marks its ids itself');
  queueKeys(options.queue);
  const names = count === 1 ? [options.queue] : partitionNames(options.queue, count);
  if (options.kinds === undefined || typeof options.kinds.validate !== 'function') throw new InvalidArgumentError('kinds', 'expected a registry made with defineKinds()');
  resolveQueueOptions(options);
  const commandTimeoutMs = assertWholeNumber('commandTimeoutMs', options.commandTimeoutMs ?? 10_000, 100, 3_600_000);
  const { client, owned } = connectRedis(options.redis, options.connectionName ?? `jobs:${options.queue}`, { commandTimeout: commandTimeoutMs });
  const { partitions: _count, ...shared } = options;
  try {
    const partitions = names.map((queue, index) => new Partition<P>({ ...shared, redis: client, queue, ...(count > 1 && { idSuffix: partitionIdSuffix(index) }) }));
    return new PartitionRouting(options.queue, client, owned, partitions);
  } catch (error) {
    if (owned) void closeClient(client);
    throw error;
  }
}

/**
 * The partition count recorded for queue `name` (see {@link Queue.ensureLayout}): 1 for a plain
 * queue. For tools that are given a queue name and must find its partitions.
 */
export async function recordedPartitions(client: RedisClient, name: string): Promise<number> {
  const recorded = await withRedisErrors(() => client.get(queueKeys(name).partitions));
  const count = Number(recorded);
  return recorded !== null && Number.isInteger(count) && count > 1 && count <= 1_024 ? count : 1;
}
