import { InvalidArgumentError } from './errors.ts';
import { assertOptionKeys } from './option-keys.ts';
import type { CancelOutcome } from './commands/cancel.ts';
import { ENQUEUE_REQUEST_KEYS, enqueuePrepared, prepareEnqueue, type EnqueueRequest, type EnqueueResult, type PreparedEnqueue } from './commands/enqueue.ts';
import { assertListState, waitingPage, type ListState, type QueueStats } from './commands/views.ts';
import { JobQueue, queueContext, type JobQueueOptions } from './job-queue.ts';
import type { ChildResult, FlowRequest, FlowResult } from './commands/flow.ts';
import type { JobRecord } from './job-record.ts';
import type { EnqueueOptions } from './enqueue-options.ts';
import { assertJobId, queueKeys, type QueueKeys } from './keys.ts';
import type { KindName, Kinds } from './kinds.ts';
import type { LimitsState, QueueLimits } from './limits.ts';
import { partitionIdSuffix, partitionNames, partitionOfId, partitionOfKey } from './partitions.ts';
import { JOB_QUEUE_OPTION_KEYS, resolveQueueOptions } from './queue-options.ts';
import type { JobTimeline } from './commands/timeline.ts';
import type { EventFollower, FollowOptions } from './event-follower.ts';
import { closeClient, connectRedis, withRedisErrors, type RedisClient } from './redis-connection.ts';
import { assertWholeNumber } from './whole-number.ts';

/**
 * Jobs without a key sent to one partition before the next one's turn: 32 full enqueue batches,
 * so consecutive script calls go to one master rather than each to another (measurements in
 * docs/BENCHMARKS.md). At a hot queue's rate a run lasts milliseconds, so the load still
 * alternates over the masters.
 */
const ROUND_ROBIN_RUN = 1024;

/** Options of {@link PartitionedQueue}. */
export interface PartitionedQueueOptions<P> extends Omit<JobQueueOptions<P>, 'idSuffix'> {
  /** Partitions: each its own queue and hash slot. 1 is the plain queue. */
  partitions: number;
}

/** Where an enqueue goes: by `partitionKey`, else by `idempotencyKey`, else round robin. */
export interface PartitionedEnqueueOptions extends EnqueueOptions {
  /**
   * Jobs with the same key go to the same partition (a stable hash of the key), so they are
   * claimed in the order they were enqueued. Without it, jobs go round robin, 1024 to a
   * partition before the next one's turn, from a partition picked at random per client (an
   * `idempotencyKey` picks the partition instead, so a resent enqueue meets its first copy).
   */
  partitionKey?: string;
}

/** One job of {@link PartitionedQueue.enqueueMany}. */
export type PartitionedEnqueueRequest<P> = {
  [N in KindName<P>]: { kind: N; payload: P[N]; options?: PartitionedEnqueueOptions };
}[KindName<P>];

function withoutPartitionKey(options: PartitionedEnqueueOptions): EnqueueOptions {
  const copy: PartitionedEnqueueOptions = { ...options };
  delete copy.partitionKey;
  return copy;
}

/**
 * Counters and depths summed over the partitions; the oldest pending age is the largest; paused
 * when any partition is (a pause that failed part way shows), with every kind paused anywhere.
 */
function sumStats(all: readonly QueueStats[]): QueueStats {
  const first = all[0] as QueueStats;
  const total = { ...first } as unknown as Record<string, number | null>;
  for (const stats of all.slice(1)) {
    for (const [field, value] of Object.entries(stats) as [keyof QueueStats, number | null][]) {
      if (field === 'visibilityMs' || field === 'paused' || field === 'pausedKinds' || field === 'limits') continue;
      if (field === 'groupedDepth' || field === 'waitingDepth') {
        // Not counted in one partition (too many groups): not counted in the sum either.
        const current = total[field] ?? null;
        total[field] = current === null || value === null ? null : current + value;
        continue;
      }
      if (field === 'nowMs' || field === 'oldestPendingAgeMs') {
        const current = total[field] ?? null;
        total[field] = value === null ? current : current === null ? value : Math.max(current, value);
      } else {
        total[field] = (total[field] as number) + (value as number);
      }
    }
  }
  return {
    ...(total as unknown as QueueStats),
    paused: all.some((stats) => stats.paused),
    pausedKinds: [...new Set(all.flatMap((stats) => stats.pausedKinds))].sort(),
  };
}

/**
 * One logical queue spread over N partitions, for a queue too hot for one Redis shard. Partition
 * `i` is the ordinary queue `NAME:p<i>` (see partitions.ts), so every script stays atomic in its
 * own hash slot and a cluster spreads the partitions over its masters. All partitions share one
 * connection. The count is recorded in Redis on first use, and a client given another count is
 * refused, so producers and workers can never disagree on where jobs are.
 */
export class PartitionedQueue<P> {
  /** The logical queue's name. */
  readonly name: string;
  /** The logical queue's keys (only `partitions` is used: the partitions have their own). */
  readonly keys: QueueKeys;
  readonly kinds: Kinds<P>;
  readonly client: RedisClient;
  /** The partitions, by index. */
  readonly partitions: readonly JobQueue<P>[];
  readonly #owned: boolean;
  /**
   * Round robin: jobs sent to the current partition so far, and which one it is. Each client
   * starts at a partition of its own (at random): a fleet of producers that each send a few
   * jobs would otherwise all fill partition 0.
   */
  #run = 0;
  #next: number;
  #layout: Promise<void> | undefined;

  constructor(options: PartitionedQueueOptions<P>) {
    const { idSuffix: _idSuffix, ...keys } = JOB_QUEUE_OPTION_KEYS;
    assertOptionKeys<PartitionedQueueOptions<P>>('options', options, { ...keys, partitions: true });
    const count = assertWholeNumber('partitions', options.partitions, 1, 1_024);
    this.keys = queueKeys(options.queue);
    this.name = options.queue;
    const names = count === 1 ? [options.queue] : partitionNames(options.queue, count);
    if (options.kinds === undefined || typeof options.kinds.validate !== 'function') throw new InvalidArgumentError('kinds', 'expected a registry made with defineKinds()');
    this.kinds = options.kinds;
    // Checked before any connection opens, so bad options leave nothing open.
    resolveQueueOptions(options);
    const commandTimeoutMs = assertWholeNumber('commandTimeoutMs', options.commandTimeoutMs ?? 10_000, 100, 3_600_000);
    const { client, owned } = connectRedis(options.redis, options.connectionName ?? `jobs:${options.queue}`, { commandTimeout: commandTimeoutMs });
    this.client = client;
    this.#owned = owned;
    const { partitions: _count, ...queueOptions } = options;
    this.#next = Math.floor(Math.random() * count);
    this.partitions = names.map((queue, index) => new JobQueue<P>({ ...queueOptions, redis: client, queue, ...(count > 1 && { idSuffix: partitionIdSuffix(index) }) }));
  }

  /**
   * Records the partition count in Redis (first user) or checks it against the recorded one.
   * Throws `JOBS_INVALID_ARGUMENT` (field `partitions`) on a mismatch: a producer writing to
   * partitions no worker reads would strand jobs.
   */
  ensureLayout(): Promise<void> {
    // One partition is the plain queue: nothing to record (its own check refuses a partitioned name).
    if (this.partitions.length === 1) return Promise.resolve();
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
  partitionFor(options?: PartitionedEnqueueOptions): JobQueue<P> {
    const count = this.partitions.length;
    let index: number;
    if (options?.partitionKey !== undefined) index = partitionOfKey(options.partitionKey, count);
    // A group's jobs share a partition, where its limits and turns hold.
    else if (typeof options?.group === 'string' && options.group.length > 0) index = partitionOfKey(options.group, count);
    else if (typeof options?.idempotencyKey === 'string' && options.idempotencyKey.length > 0) index = partitionOfKey(options.idempotencyKey, count);
    else {
      // Round robin in runs (see ROUND_ROBIN_RUN): the enqueues of one tick still fill whole
      // script calls (see JobQueue's batching), and consecutive calls go to one master.
      index = this.#next;
      this.#run += 1;
      if (this.#run >= ROUND_ROBIN_RUN) {
        this.#run = 0;
        this.#next = (this.#next + 1) % count;
      }
    }
    return this.partitions[index] as JobQueue<P>;
  }

  /** The partition whose id this is, when the id says (ids this package makes do). */
  partitionOf(id: string): JobQueue<P> | undefined {
    if (this.partitions.length === 1) return this.partitions[0];
    const index = partitionOfId(id, this.partitions.length);
    return index === undefined ? undefined : this.partitions[index];
  }

  /** Enqueues one job on the partition its options pick. Returns its id. */
  async enqueue<N extends KindName<P>>(kind: N, payload: P[N], options?: PartitionedEnqueueOptions): Promise<string> {
    const partition = this.partitionFor(options);
    await this.ensureLayout();
    return partition.enqueue(kind, payload, options === undefined ? undefined : withoutPartitionKey(options));
  }

  /**
   * Enqueues many jobs: one atomic script per partition involved, the partitions in parallel.
   * Every payload is validated (once) before anything is written; a Redis failure part way can leave
   * some partitions written (each partition's share is all or nothing). Results in input order.
   */
  async enqueueMany(jobs: readonly PartitionedEnqueueRequest<P>[]): Promise<EnqueueResult[]> {
    if (!Array.isArray(jobs)) throw new InvalidArgumentError('jobs', 'expected an array');
    if (jobs.length > 10_000) throw new InvalidArgumentError('jobs', `at most 10000 jobs per call, got ${jobs.length}`);
    if (this.partitions.length === 1) {
      // The plain queue: its own enqueueMany reads only the options it knows.
      jobs.forEach((job, index) => {
        const key = (job as { options?: PartitionedEnqueueOptions } | null)?.options?.partitionKey;
        if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 512)) {
          throw new InvalidArgumentError(`jobs[${index}].options.partitionKey`, 'expected a string of 1 to 512 characters');
        }
      });
      const plain = jobs.map((job) => (job?.options === undefined ? job : { ...job, options: withoutPartitionKey(job.options) }));
      return (this.partitions[0] as JobQueue<P>).enqueueMany(plain as readonly EnqueueRequest<P>[]);
    }
    // Every job is checked and encoded, once, before the first write anywhere.
    const groups = new Map<JobQueue<P>, { jobs: PreparedEnqueue[]; at: number[] }>();
    jobs.forEach((job, index) => {
      assertOptionKeys(`jobs[${index}]`, job, ENQUEUE_REQUEST_KEYS);
      const partition = this.partitionFor(job.options);
      const request = { kind: job.kind, payload: job.payload, ...(job.options !== undefined && { options: withoutPartitionKey(job.options) }) } as EnqueueRequest<P>;
      const group = groups.get(partition) ?? { jobs: [], at: [] };
      groups.set(partition, group);
      group.jobs.push(prepareEnqueue(queueContext(partition), request, jobs.length === 1 ? undefined : index));
      group.at.push(index);
    });
    await this.ensureLayout();
    const results: EnqueueResult[] = new Array(jobs.length);
    await Promise.all(
      [...groups].map(async ([partition, group]) => {
        const written = await enqueuePrepared(queueContext(partition), group.jobs);
        written.forEach((result, i) => {
          results[group.at[i] as number] = result;
        });
      }),
    );
    return results;
  }

  /**
   * Enqueues a flow (see {@link JobQueue.enqueueFlow}) on one partition, the next in the round
   * robin: a flow's jobs share one hash slot, so it never spans partitions.
   */
  async enqueueFlow(flow: FlowRequest<P>): Promise<FlowResult> {
    const partition = this.partitionFor();
    await this.ensureLayout();
    return partition.enqueueFlow(flow);
  }

  /** The children of flow parent `id` (see {@link JobQueue.children}), from its partition. */
  async children(id: string): Promise<Record<string, ChildResult>> {
    assertJobId(id);
    const partition = this.partitionOf(id) ?? this.partitions[0];
    return (partition as JobQueue<P>).children(id);
  }

  /** The job with this id, from the partition its id names (or, for a foreign id, any). */
  async getJob(id: string): Promise<JobRecord | null> {
    assertJobId(id);
    const partition = this.partitionOf(id);
    if (partition) return partition.getJob(id);
    const found = await Promise.all(this.partitions.map((queue) => queue.getJob(id)));
    return found.find((job) => job !== null) ?? null;
  }

  /**
   * Follows the event log (see {@link JobQueue.events}). Each partition keeps its own log: a
   * partitioned queue needs `partition` (0-based), a plain one takes none.
   */
  async events(options: FollowOptions & { partition?: number } = {}): Promise<EventFollower> {
    assertOptionKeys<FollowOptions & { partition?: number }>('options', options, { from: true, batch: true, signal: true, partition: true });
    const { partition, ...follow } = options;
    if (partition === undefined && this.partitions.length > 1) {
      throw new InvalidArgumentError('partition', `queue "${this.name}" has ${this.partitions.length} partitions, each with its own event log: pick one (0 to ${this.partitions.length - 1})`);
    }
    const index = assertWholeNumber('partition', partition ?? 0, 0, this.partitions.length - 1);
    return (this.partitions[index] as JobQueue<P>).events(follow);
  }

  /** A job's own events (see {@link JobQueue.timeline}), from the partition that holds it. */
  async timeline(id: string, options: { limit?: number } = {}): Promise<JobTimeline | null> {
    assertJobId(id);
    const partition = this.partitionOf(id);
    if (partition) return partition.timeline(id, options);
    const found = await Promise.all(this.partitions.map((queue) => queue.timeline(id, options)));
    return found.find((timeline) => timeline !== null) ?? null;
  }

  /** Cancels a job that has not started, on the partition that holds it. */
  async cancel(id: string): Promise<CancelOutcome> {
    assertJobId(id);
    const partition = this.partitionOf(id);
    if (partition) return partition.cancel(id);
    let outcome: CancelOutcome = { cancelled: false, status: 'not_found' };
    for (const queue of this.partitions) {
      outcome = await queue.cancel(id);
      if (outcome.cancelled || outcome.status !== 'not_found') return outcome;
    }
    return outcome;
  }

  /**
   * The jobs in one state, the partitions' lists one after another (partition 0 first), paged as
   * one list: `offset` counts from the start of partition 0's. Each partition's depth is read
   * first, so only the partitions the page falls in are read; on a busy queue the lists move in
   * between, as a single list would between two pages. `waiting` needs no depths: each
   * partition's page says how many of its jobs it passed over.
   */
  async list(state: ListState, options: { offset?: number; limit?: number } = {}): Promise<JobRecord[]> {
    if (this.partitions.length === 1) return (this.partitions[0] as JobQueue<P>).list(state, options);
    assertOptionKeys<{ offset?: number; limit?: number }>('options', options, { offset: true, limit: true });
    let skip = assertWholeNumber('offset', options.offset ?? 0, 0, Number.MAX_SAFE_INTEGER);
    let left = assertWholeNumber('limit', options.limit ?? 50, 1, 1_000);
    assertListState(state);
    if (state === 'waiting') return this.#listWaiting(skip, left);
    const field = `${state}Depth` as const;
    const depths = await Promise.all(this.partitions.map(async (partition) => (await partition.stats())[field]));
    const page: JobRecord[] = [];
    for (const [index, partition] of this.partitions.entries()) {
      const depth = depths[index] as number;
      if (skip >= depth) {
        skip -= depth;
        continue;
      }
      const jobs = await partition.list(state, { offset: skip, limit: left });
      page.push(...jobs);
      left -= jobs.length;
      skip = 0;
      if (left === 0) break;
    }
    return page;
  }

  /** {@link list}('waiting'): the partitions' waiting jobs one after another. */
  async #listWaiting(skip: number, left: number): Promise<JobRecord[]> {
    const jobs: JobRecord[] = [];
    for (const partition of this.partitions) {
      const page = await waitingPage(queueContext(partition), skip, left);
      jobs.push(...page.jobs);
      skip -= page.skipped;
      left -= page.taken;
      if (left === 0) break;
    }
    return jobs;
  }

  /** Depths and counters summed over every partition. */
  async stats(): Promise<QueueStats> {
    return sumStats(await Promise.all(this.partitions.map((queue) => queue.stats())));
  }

  /**
   * Pauses every partition (or one kind in every partition): see {@link JobQueue.pause}. Once it
   * resolves, no partition starts a new job of the queue or kind. A pause that fails part way
   * (Redis away) leaves some partitions paused: `stats().paused` then says so; call it again.
   */
  async pause(options: { kind?: string } = {}): Promise<void> {
    await Promise.all(this.partitions.map((queue) => queue.pause(options)));
  }

  /** Resumes every partition (or one kind in every partition): see {@link JobQueue.resume}. */
  async resume(options: { kind?: string; batch?: number } = {}): Promise<void> {
    await Promise.all(this.partitions.map((queue) => queue.resume(options)));
  }

  /**
   * Sets the same limits on every partition (see {@link JobQueue.setLimits}). They hold per
   * partition: a limit of K starts per window lets N partitions start up to N×K in all (each
   * partition is its own hash slot, and Redis Cluster has no atomic step across slots). A
   * group's jobs all go to one partition (by the group key), so group limits hold exactly.
   */
  async setLimits(limits: QueueLimits): Promise<void> {
    await Promise.all(this.partitions.map((queue) => queue.setLimits(limits)));
  }

  /** The limits of the first partition (they are set on all alike). */
  async limits(): Promise<LimitsState> {
    return (this.partitions[0] as JobQueue<P>).limits();
  }

  /** Closes every partition and the connection, if this queue opened it. */
  async close(): Promise<void> {
    await Promise.all(this.partitions.map((queue) => queue.close()));
    if (this.#owned) await closeClient(this.client);
  }
}

/**
 * The partition count recorded for queue `name` (see {@link PartitionedQueue.ensureLayout}):
 * 1 for a plain queue. For tools that are given a queue name and must find its partitions.
 */
export async function recordedPartitions(client: RedisClient, name: string): Promise<number> {
  const recorded = await withRedisErrors(() => client.get(queueKeys(name).partitions));
  const count = Number(recorded);
  return recorded !== null && Number.isInteger(count) && count > 1 && count <= 1_024 ? count : 1;
}
