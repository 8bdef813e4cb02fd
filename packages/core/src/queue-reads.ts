import { readAudit, type AuditPage } from './commands/audit.ts';
import type { ChildResult } from './commands/flow.ts';
import { readHistory, type HistoryOptions, type QueueHistory } from './commands/history.ts';
import { limits } from './commands/limits.ts';
import { timeline, type JobTimeline } from './commands/timeline.ts';
import { attempts, logs, type JobAttempts, type JobLogs } from './commands/trail.ts';
import { getJob, list, stats, type ListState, type QueueStats } from './commands/views.ts';
import { why, type JobWhy } from './commands/why.ts';
import { readWorkers, type WorkerInfo } from './commands/workers.ts';
import { quietOrResume, scaleWorkers, type ScaleWorkersOptions, type TellWorkersOptions, type WorkersTold } from './commands/tell-workers.ts';
import type { EventFollower, FollowOptions } from './event-follower.ts';
import type { JobRecord } from './job-record.ts';
import { assertJobId, type QueueKeys } from './keys.ts';
import type { Kinds } from './kinds.ts';
import type { LimitsState } from './limits.ts';
import type { Partition } from './partition.ts';
import { openPartitions, type PartitionedEnqueueOptions, type PartitionRouting } from './partition-routing.ts';
import type { QueueConfig, ResolvedQueueOptions } from './queue-options.ts';
import type { RedisClient } from './redis-connection.ts';
import type { Schedules } from './schedules/schedules.ts';

/**
 * What a {@link Queue} reads: its jobs, lists, events, timelines, reasons, stats, schedules,
 * workers and limits, and the orders to its workers (quiet, resume, scale), none of which moves a job. `Queue` adds the verbs that move jobs; this
 * half holds the connection and the partition routing both use.
 */
export abstract class QueueReads<P> {
  /** The queue's name. */
  readonly name: string;
  /** Every key of the queue (of a partitioned one, only `partitions` is used: the partitions have their own). */
  readonly keys: QueueKeys;
  /** The job kinds. */
  readonly kinds: Kinds<P>;
  /** The queue's policy, defaults filled in. */
  readonly options: ResolvedQueueOptions;
  /** The client every command but the blocking waits goes through. */
  readonly client: RedisClient;
  /** The partitions, by index: one for a plain queue. What a worker's lanes claim from. */
  readonly partitions: readonly Partition<P>[];
  /** How calls find their partition. */
  protected readonly routing: PartitionRouting<P>;
  /** The only partition of a plain queue, so that its job path skips routing. */
  protected readonly sole: Partition<P> | undefined;

  constructor(options: QueueConfig<P>) {
    const routing = openPartitions(options);
    this.routing = routing;
    this.sole = routing.sole;
    this.name = routing.name;
    this.keys = routing.keys;
    this.kinds = options.kinds;
    this.options = (routing.partitions[0] as Partition<P>).options;
    this.client = routing.client;
    this.partitions = routing.partitions;
  }

  /** Records the partition count in Redis (first user) or checks it: `JOBS_INVALID_ARGUMENT` (field `partitions`) on a mismatch, which would strand jobs. */
  ensureLayout(): Promise<void> {
    return this.routing.ensureLayout();
  }

  /** The partition an enqueue with these options goes to: by `partitionKey`, else `group`, else `idempotencyKey`, else round robin. */
  partitionFor(options?: PartitionedEnqueueOptions): Partition<P> {
    return this.routing.partitionFor(options);
  }

  /** The partition whose id this is, when the id says (ids this package makes do). */
  partitionOf(id: string): Partition<P> | undefined {
    return this.routing.partitionOf(id);
  }

  /**
   * The children of flow parent `id`, by child id, each with its kind and status: `completed` with
   * its result, `failed` or `cancelled` with its error, or `waiting`. `{}` for none (or no job).
   */
  async children(id: string): Promise<Record<string, ChildResult>> {
    if (this.sole === undefined) assertJobId(id);
    return (this.routing.partitionOf(id) ?? (this.partitions[0] as Partition<P>)).children(id);
  }

  /** The job with id `id`, or null when there is none (or its hash has expired). */
  getJob(id: string): Promise<JobRecord | null> {
    return getJob(this.routing.holders(id), id);
  }

  /**
   * One page of a list, read in one step: pending oldest first, delayed soonest first,
   * processing, completed and failed newest first. Ids whose hash expired are left out.
   * `waiting` pages through every job waiting to start in the order claims take them (see
   * {@link ListState}); its depth is `stats().waitingDepth`. `prioritized`, `parked` and `grouped`
   * page one part of it alone, and `waiting-children` the flow parents waiting for their children,
   * oldest first (each with its depth in `stats()`). A partitioned queue pages through
   * its partitions' lists one after another, partition 0 first.
   */
  list(state: ListState, options: { offset?: number; limit?: number } = {}): Promise<JobRecord[]> {
    return list(this.routing.contexts, state, options);
  }

  /**
   * Follows the queue's event log (see {@link QueueOptions.eventLog}) from `from`: `'$'` (the
   * default) after the newest event when this call resolves, `'0'` from the oldest one kept, or
   * after a stream id, such as the `id` of the last event a follower delivered. The follower
   * is an async iterable on a connection of its own: it waits in Redis while caught up, reads on
   * from its last delivered id after a lost connection (no event twice, none skipped), and
   * delivers a `gap` item when the capped log was trimmed past its cursor. Stop it with
   * `close()`, `signal`, or by breaking out of the loop; closing the queue closes it too. Each
   * partition keeps its own log: a partitioned queue needs `partition` (0-based).
   */
  events(options: FollowOptions & { partition?: number } = {}): Promise<EventFollower> {
    return this.routing.follow(options);
  }

  /**
   * A job's own events from the event log, oldest first (at most its last 64, or `limit`), read
   * in one step from the ids its hash keeps: no scan of the log. Null when there is no such job
   * (or its hash has expired); `events` is empty when the log is off.
   */
  timeline(id: string, options: { limit?: number } = {}): Promise<JobTimeline | null> {
    return timeline(this.routing.holders(id), id, options);
  }

  /**
   * Job `id`'s attempts, oldest first, read in one step: each ended attempt as the script that
   * ended it recorded it (outcome, error with its stack, times, worker; see
   * {@link QueueOptions.attemptHistory}), then the running or completed one from the hash. The
   * worker of an attempt the sweeper reclaimed, or that is running or completed, comes from the
   * event log when it is on. `trimmed`: older attempts the cap cut. Null when there is no such job.
   */
  attempts(id: string): Promise<JobAttempts | null> {
    return attempts(this.routing.holders(id), id);
  }

  /**
   * Job `id`'s log lines (a handler's `ctx.log`, see {@link QueueOptions.jobLogs}), oldest first,
   * the newest `limit` (default and most 10,000) in one step; `trimmed` counts the older lines
   * cut or left out. Null when there is no such job.
   */
  logs(id: string, options: { limit?: number } = {}): Promise<JobLogs | null> {
    return logs(this.routing.holders(id), id, options);
  }

  /**
   * Why job `id` is not running, in one atomic look at the job and the queue's state (on the
   * partition that holds it): its status and each reason with its numbers, as `WhyReasonFields`
   * lists them (a pause, a rate window, a cap and who holds it, children, a delay, jobs ahead,
   * no live worker of its kind...). Changes nothing. Null when there is no such job; throws
   * `JOBS_INVALID_ARGUMENT` for an id that cannot be one.
   */
  why(id: string): Promise<JobWhy | null> {
    return why(this.routing.holders(id), id, (this.partitions[0] as Partition<P>).ctx);
  }

  /** Depths, counters and the oldest pending job's age, in one consistent snapshot per partition, summed over the partitions. */
  stats(): Promise<QueueStats> {
    return stats(this.routing.contexts);
  }

  /**
   * The queue's metrics history (see {@link QueueOptions.metricsHistory}), in columns of one
   * entry per step, oldest first: jobs enqueued, completed, failed (dead-lettered) and retried,
   * and the run-time percentiles of the attempts that ended, for the last `since` ms (default
   * an hour; per minute up to 24 hours, per hour up to 14 days), of one kind or all summed.
   * Redis time decides the steps. One script call per partition, summed; reads nothing but
   * the history's keys, whatever the queue's depth.
   */
  history(options: HistoryOptions = {}): Promise<QueueHistory> {
    return readHistory(this.routing.contexts, options);
  }

  /** The queue's schedules: create, change, list, pause, resume and remove them (a partitioned queue keeps them in partition 0). */
  get schedules(): Schedules<P> {
    return (this.partitions[0] as Partition<P>).schedules;
  }

  /**
   * The queue's live workers as their last heartbeats describe them, in id order, read in one
   * step from the queue's own keys (partition 0's), not `CLIENT LIST`: it works on a cluster and
   * under the queue's ACL user. A worker is alive until its last heartbeat plus its TTL (Redis clock).
   */
  workers(): Promise<WorkerInfo[]> {
    return readWorkers((this.partitions[0] as Partition<P>).ctx);
  }

  /**
   * Tells the queue's workers to stop claiming: every worker alive in the registry now (not one
   * started later, so a new deploy's workers claim), or the one `workerId` names. Each finishes
   * the jobs it runs, renews their leases and heartbeats on, and says `quiet: true` in
   * {@link workers} once no claim of its is in flight. The order is stored in each worker's
   * registry hash and published on the control channel in one step: a worker that misses the
   * message obeys at its next heartbeat, and a call resent after a lost reply orders the same
   * again. A worker started with heartbeats off (`heartbeatIntervalMs: 0`) is not in the
   * registry and cannot be told. Resolves with the ids told; a bad `workerId` or an unknown
   * option key throws `JOBS_INVALID_ARGUMENT`, writing nothing.
   */
  quietWorkers(options: TellWorkersOptions = {}): Promise<WorkersTold> {
    return quietOrResume((this.partitions[0] as Partition<P>).ctx, 'quiet', options);
  }

  /**
   * Tells the queue's workers (every one alive now, or the one `workerId` names) to claim again
   * after {@link quietWorkers} (or their own `worker.quiet()`). Delivered, stored and resent
   * safely as {@link quietWorkers} is. (The queue's own {@link Queue.resume} undoes a pause
   * instead, which holds jobs back in Redis whatever the workers do.)
   */
  resumeWorkers(options: TellWorkersOptions = {}): Promise<WorkersTold> {
    return quietOrResume((this.partitions[0] as Partition<P>).ctx, 'resume', options);
  }

  /**
   * Tells the queue's workers (every one alive now, or the one `workerId` names) to run
   * `concurrency` jobs at once: more start claiming at once; fewer let running jobs finish
   * (none is aborted) and claim only below the new number. A concurrency below a worker's
   * largest batch size is refused for all (`JOBS_INVALID_ARGUMENT`, field `concurrency`,
   * nothing written), as is one outside 1 to 10,000. Delivered, stored and resent safely as
   * {@link quietWorkers} is.
   */
  scaleWorkers(options: ScaleWorkersOptions): Promise<WorkersTold> {
    return scaleWorkers((this.partitions[0] as Partition<P>).ctx, options);
  }

  /**
   * A page of the queue's audit trail (who did what, when, to how many jobs: see
   * {@link Queue.recordAudit}), newest first: `limit` entries (default 50, at most 1000) before
   * the entry id `before` (a page's `next`), in one read of partition 0's stream.
   */
  auditTrail(options: { limit?: number; before?: string } = {}): Promise<AuditPage> {
    return readAudit((this.partitions[0] as Partition<P>).ctx, options);
  }

  /** The queue's limits as stored in Redis, and the kinds a handler's pushback holds back (until when). */
  limits(): Promise<LimitsState> {
    return limits(this.routing.contexts);
  }
}
