import { Batch, batchPartition } from './batch.ts';
import { recordAudit, type AuditEntry, type AuditRecord } from './commands/audit.ts';
import { dedupeOwner, type DedupeOwner } from './commands/dedupe.ts';
import { listBatches, prepareBatch, readBatch, type BatchOptions, type BatchState } from './commands/batch.ts';
import { cancel, type CancelOutcome } from './commands/cancel.ts';
import { changePriority, type ChangePriorityOutcome } from './commands/change-priority.ts';
import type { ClaimOptions } from './commands/claim.ts';
import type { CompleteAndClaimResult, CompleteOutcome } from './commands/complete.ts';
import { enqueue, enqueueMany, type EnqueueResult, type PartitionedEnqueueRequest } from './commands/enqueue.ts';
import type { FailOptions, FailOutcome } from './commands/fail.ts';
import { enqueueFlow, type FlowRequest, type FlowResult } from './commands/flow.ts';
import { setLimits } from './commands/limits.ts';
import { pause, resume, type PauseOptions } from './commands/pause.ts';
import { promoteJob, type PromoteOutcome } from './commands/promote-job.ts';
import type { ReclaimResult } from './commands/reclaim.ts';
import { removeJob, type RemoveOutcome } from './commands/remove.ts';
import { retry, retryFailed } from './commands/retry.ts';
import { purge, tidyHistory } from './commands/tidy.ts';
import type { LogLineInput } from './commands/trail.ts';
import type { ClaimedJob } from './job-record.ts';
import type { KindName } from './kinds.ts';
import type { QueueLimits } from './limits.ts';
import type { PartitionedEnqueueOptions } from './partition-routing.ts';
import type { Partition } from './partition.ts';
import { assertOptionKeys } from './option-keys.ts';
import { QueueReads } from './queue-reads.ts';

/**
 * A queue: the verbs of the redis.io job-queue recipe (`enqueue`, `claim`, `complete`, `fail`,
 * `reclaimStuck`, `stats`, `getJob`) and the rest, each one atomic Lua script, with the recipe's
 * flaws fixed. Each verb's logic lives in its command under `commands/`; this class routes each
 * call that moves jobs, and {@link QueueReads} (which it extends) the reads and the connection.
 * `@jobs/producer` and `@jobs/worker` are thin layers over it.
 *
 * With `partitions` (default 1) the queue spreads over N partitions, for a queue too hot for one
 * Redis shard: partition `i` is the ordinary queue `NAME:p<i>` (see partitions.ts), so every
 * script stays atomic in its own hash slot and a cluster spreads the partitions over its
 * masters. All partitions share one connection. The count is recorded in Redis on first use, and
 * a client given another count is refused, so producers and workers never disagree on where
 * jobs are. The verbs of one job find its partition by its id. The ones that run on one
 * partition at a time (`claim`, `waitForWork`, `completeManyAndClaim`, the sweeps, `retry`,
 * `retryFailed`, `tidyHistory`, `purge`) throw `JOBS_INVALID_ARGUMENT` on a partitioned queue:
 * a worker claims from each of {@link partitions}, and an operator opens a partition by its name.
 *
 * @example
 * ```ts
 * const queue = new Queue({ redis: 'redis://127.0.0.1:6379', queue: 'mail', kinds });
 * const id = await queue.enqueue('email', { recipient: 'alice@example.com' });
 * const [job] = await queue.claim({ blockMs: 1000 });
 * if (job) await queue.complete(job, { sent: true });
 * await queue.close();
 * ```
 */
export class Queue<P> extends QueueReads<P> {
  /**
   * Enqueues one job after validating its payload against the kind's schema (nothing is written
   * when it is invalid), on the partition its options pick. Returns the job's id; with an
   * idempotency key still held, the id of the job that holds it.
   */
  enqueue<N extends KindName<P>>(kind: N, payload: P[N], options?: PartitionedEnqueueOptions): Promise<string> {
    return enqueue(this.routing, kind, payload, options);
  }

  /**
   * Enqueues many jobs in one round trip and one atomic script per partition involved (the
   * partitions in parallel). Every payload is validated, once, before anything is written: one
   * bad job and none is written. A Redis failure part way can leave some partitions written
   * (each partition's share is all or nothing). Results in input order.
   */
  enqueueMany(jobs: readonly PartitionedEnqueueRequest<P>[]): Promise<EnqueueResult[]> {
    return enqueueMany(this.routing, jobs);
  }

  /**
   * Enqueues a flow: a parent job and its children (of any kinds, nested as deep as you like),
   * in one round trip and one atomic script, all in one partition (one hash slot, so every step
   * of the flow is atomic). Every payload is validated first: one bad job and nothing is written.
   * The parent waits in status `waiting-children` until each child has completed, then runs
   * (after its delay, if any); its handler reads the children's results with {@link children}.
   * A child that fails for good fails the parent (`JOBS_CHILD_FAILED`), unless the parent says
   * `onChildFailure: 'ignore'`. Cancelling the parent cancels its unstarted children.
   * Returns the ids, in the shape of the request.
   */
  enqueueFlow(flow: FlowRequest<P>): Promise<FlowResult> {
    return enqueueFlow(this.routing, flow);
  }

  /**
   * Claims up to `max` jobs in one round trip: due delayed jobs are promoted first, then each
   * claimed job is moved to processing and stamped with a token and a lease in the same atomic
   * step. With `blockMs`, waits for work (blocking in Redis, no polling) and returns as soon as
   * some is claimed; an empty array means none came in time.
   */
  claim(options: ClaimOptions = {}): Promise<ClaimedJob[]> {
    return (this.sole ?? this.routing.whole('claim')).claim(options);
  }

  /**
   * Resolves when pending may hold work (a push, or work already there), after at most about
   * `timeoutMs`, or when `signal` aborts: the same blocking wait a blocked claim uses, for a
   * caller that watches several queues at once. Never rejects.
   */
  waitForWork(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return (this.sole ?? this.routing.whole('waitForWork')).waitForWork(timeoutMs, signal);
  }

  /**
   * Completes a claimed job with its result (stored as JSON). Throws {@link LostClaimError}
   * when this claim is no longer valid (the lease expired and the job was reclaimed, or it
   * was already completed or failed): nothing is changed then.
   */
  complete(job: ClaimedJob, result: unknown): Promise<void> {
    return (this.sole ?? this.routing.holderOf(job)).completer.complete(job, result);
  }

  /** Completes many claimed jobs (of one partition) in one round trip; per job, true when completed. Throws (and changes nothing) if any result cannot be stored. */
  completeMany(items: readonly { job: ClaimedJob; result: unknown }[]): Promise<boolean[]> {
    return (this.sole ?? this.routing.holderOfAll(items)).completer.completeMany(items);
  }

  /**
   * Completes many claimed jobs (of one partition) in one round trip, each on its own: a result
   * that cannot be stored (too large, not JSON) refuses that job only. Per job: `completed`,
   * `lost` (the claim was no longer valid), or `refused` with the error.
   */
  completeSettled(items: readonly { job: ClaimedJob; result: unknown }[]): Promise<CompleteOutcome[]> {
    return (this.sole ?? this.routing.holderOfAll(items)).completer.completeSettled(items);
  }

  /**
   * What a busy worker sends: completes `items` (each on its own, as {@link completeSettled}
   * does) and claims up to `max` next jobs, in one script call: one round trip and one atomic
   * step. Never waits for work; `max` 0 only completes. In durable mode a shortfall of replicas
   * is reported in `notReplicated`, not thrown, since the claimed jobs must reach the caller.
   */
  completeManyAndClaim(items: readonly { job: ClaimedJob; result: unknown }[], options: { max?: number } = {}): Promise<CompleteAndClaimResult> {
    return (this.sole ?? this.routing.whole('completeManyAndClaim')).completeManyAndClaim(items, options);
  }

  /** Completes a job and claims up to `max` next ones in one round trip (never waits); `completed` false when the claim was lost. */
  completeAndClaim(job: ClaimedJob, result: unknown, options: { max?: number } = {}): Promise<{ completed: boolean; next: ClaimedJob[] }> {
    return (this.sole ?? this.routing.holderOf(job)).completer.completeAndClaim(job, result, options);
  }

  /**
   * Records a failed attempt. The job is retried after the kind's backoff (or `retryDelayMs`)
   * while it has attempts left; a permanent failure, or the last attempt, moves it to failed
   * with `error` as its `last_error`. Throws {@link LostClaimError} when this claim is no
   * longer valid.
   */
  fail(job: ClaimedJob, error: unknown, options: FailOptions = {}): Promise<FailOutcome> {
    return (this.sole ?? this.routing.holderOf(job)).fail(job, error, options);
  }

  /**
   * Renews the leases of many claimed jobs (of one partition) in one round trip: each stays
   * claimed for `leaseMs` from now. Per job, the new deadline (Redis clock, ms), or null when
   * the claim was lost (reclaimed, finished, or cancelled while it ran).
   */
  extendLeases(jobs: readonly ClaimedJob[], leaseMs: number): Promise<(number | null)[]> {
    return (this.sole ?? this.routing.holderOfAll(jobs)).extendLeases(jobs, leaseMs);
  }

  /** Renews one job's lease for `leaseMs` from now; throws {@link LostClaimError} if lost, {@link JobCancelledError} if cancelled while it ran. */
  extendLease(job: ClaimedJob, leaseMs: number): Promise<number> {
    return (this.sole ?? this.routing.holderOf(job)).extendLease(job, leaseMs);
  }

  /**
   * Hands claimed jobs (of one partition) back to pending at once, to the claim end, without
   * counting the interrupted attempt: for a worker that shuts down before they finish. Per job,
   * true when released (false when the claim was already lost).
   */
  release(jobs: readonly ClaimedJob[]): Promise<boolean[]> {
    return (this.sole ?? this.routing.holderOfAll(jobs)).release(jobs);
  }

  /**
   * One bounded reclaim sweep: jobs whose lease expired go back to pending (or to failed on
   * their last attempt), at most `batch` (default 500) per call; up to `scanBudget` processing
   * entries are checked for claims made by recipe clients, which carry no lease. Safe to run
   * from any number of processes at once.
   */
  reclaimStuck(options: { batch?: number; scanBudget?: number } = {}): Promise<ReclaimResult> {
    return (this.sole ?? this.routing.whole('reclaimStuck')).reclaimStuck(options);
  }

  /**
   * Moves due delayed jobs to pending, at most `batch`; returns how many, when the next is due
   * (null: none left), and the server's clock when it looked (both in ms, on that clock).
   */
  promoteDue(batch = 1_000): Promise<{ promoted: number; nextDueMs: number | null; nowMs: number }> {
    return (this.sole ?? this.routing.whole('promoteDue')).promoteDue(batch);
  }

  /**
   * Redrives dead-lettered jobs by id: back onto pending with a fresh set of attempts. Per id,
   * true when redriven, else the status that kept it (`not_found` when there is no such job).
   */
  retry(ids: readonly string[]): Promise<(true | string)[]> {
    return retry((this.sole ?? this.routing.whole('retry')).ctx, ids);
  }

  /** Redrives up to `batch` of the oldest dead-lettered jobs (the far end of the failed list); `more` while ids are left. */
  retryFailed(options: { batch?: number } = {}): Promise<{ retried: string[]; more: boolean }> {
    return retryFailed((this.sole ?? this.routing.whole('retryFailed')).ctx, options);
  }

  /**
   * Drops ids whose hash has expired from the far end of the completed and failed histories, at
   * most `batch` from each. Returns how many it dropped; the failed ones (jobs lost to
   * `failedTtlSeconds`) are counted in `failedDroppedTotal`.
   */
  tidyHistory(batch = 1_000): Promise<{ completed: number; failed: number }> {
    return tidyHistory((this.sole ?? this.routing.whole('tidyHistory')).ctx, batch);
  }

  /**
   * Appends an entry to the queue's audit trail (partition 0's capped stream, kept by a purge):
   * who acted (role and label), what, on which target, how many jobs it changed. The entry's
   * time is the Redis clock's. The trail keeps its newest `maxEntries` (default 10000). Bad
   * input throws `JOBS_INVALID_ARGUMENT`, writing nothing. The dashboard and `jobsctl` record
   * their actions here.
   */
  recordAudit(record: AuditRecord, options: { maxEntries?: number } = {}): Promise<AuditEntry> {
    return recordAudit((this.partitions[0] as Partition<P>).ctx, record, options);
  }

  /** Deletes every key of the queue (lists, sets, counters, job hashes) but its audit trail, and returns how many. Not atomic: stop its producers and workers first. */
  purge(): Promise<number> {
    return purge((this.sole ?? this.routing.whole('purge')).ctx);
  }

  /**
   * A batch: jobs of any kinds added with `add` (streamed 1,000 per call), then `seal`ed, with
   * callbacks that are jobs too: `onDeath` when the first job fails for good; once sealed and
   * every job ended, `onComplete`, and `onSuccess` when all completed. Each callback's job is
   * enqueued once, by the script that ends the last job (or the seal), with the id
   * `batch:<id>:<success|complete|death>`. Checks the options and payloads now; writes nothing
   * until the first `add` or `seal`.
   */
  batch(options: BatchOptions<P> = {}): Batch<P> {
    // Every partition has the same kinds: any checks the options and payloads.
    return new Batch(this.routing, prepareBatch((this.sole ?? (this.routing.partitions[0] as Partition<P>)).ctx, options));
  }

  /** The state of batch `id` (its counts and callbacks), or null when there is none. */
  batchState(id: string): Promise<BatchState | null> {
    return readBatch(batchPartition(this.routing, id).ctx, id);
  }

  /** The queue's batches (at most `limit` per partition), newest first; finished ones are kept a week. */
  async batches(options: { limit?: number } = {}): Promise<BatchState[]> {
    assertOptionKeys('options', options, { limit: true });
    const lists = await Promise.all(this.routing.partitions.map((partition) => listBatches(partition.ctx, options.limit)));
    return lists.flat().sort((a, b) => b.createdAtMs - a.createdAtMs);
  }

  /**
   * The job that owns dedupe (or unique) key `key` of kind `kind`, its status and whether an
   * enqueue with the key would be absorbed now; null when no job holds it. On a partitioned
   * queue, the partition the key picks when no `partitionKey` or `group` is given.
   */
  dedupeOwner(kind: KindName<P>, key: string): Promise<DedupeOwner | null> {
    return dedupeOwner((this.sole ?? this.routing.partitionFor({ partitionKey: key })).ctx, kind, key);
  }

  /**
   * Cancels a job that has not finished, on the partition that holds it: one waiting (pending,
   * delayed, parked, a flow's parent waiting for its children) or one running. A running job's
   * claim is void at once, so its worker can record nothing for it; the worker is told on the
   * queue's control channel (or at its next lease renewal, if that message is lost) and aborts
   * the handler's `signal` with `JOBS_CANCELLED`. The job ends `cancelled`, neither retried nor
   * failed. Says whether it was cancelled, and from which status (`wasRunning`).
   */
  cancel(id: string): Promise<CancelOutcome> {
    return cancel(this.routing.holders(id), id);
  }

  /**
   * Starts a delayed job now (enqueued with a delay, or a retry in its backoff), on the partition
   * that holds it: it goes where a due delayed job goes (the back of its priority's place, or its
   * group's list), so pauses, limits and group turns still apply. `{ promoted: false, status }`
   * for a job that is not delayed (`not_found`: none). Safe to resend: a call whose reply was
   * lost answers `promoted: true` again and moves nothing twice.
   */
  promote(id: string): Promise<PromoteOutcome> {
    return promoteJob(this.routing.holders(id), id);
  }

  /**
   * Gives a job that has not started a new `priority` (a whole number from -1000 to 1000, higher
   * first). A job waiting in pending or a priority's list moves to the back of its new level; a
   * delayed job, a flow's parent, a parked job and a job of a group keep their place and go by
   * the new priority when next put in line. `{ changed: false, status }` for a job that is
   * running or finished (`not_found`: none); a bad priority throws `JOBS_INVALID_ARGUMENT`,
   * writing nothing. Safe to resend.
   */
  changePriority(id: string, priority: number): Promise<ChangePriorityOutcome> {
    return changePriority(this.routing.holders(id), id, priority);
  }

  /**
   * Deletes a job that is not running (pending, delayed, waiting for its children, completed,
   * failed or cancelled): off every list and set, its hash gone, its idempotency key released,
   * logged `removed`. A flow's parent waiting for its children cancels its unstarted children
   * first; a child its parent still waits for settles there as cancelled (error `removed`), so
   * the parent fails or goes on as its `onChildFailure` says. `{ removed: false, status }` for a
   * running job (cancel or finish it first) or none (`not_found`). Safe to resend: a call whose
   * reply was lost answers `removed: true` again.
   */
  remove(id: string): Promise<RemoveOutcome> {
    return removeJob(this.routing.holders(id), id);
  }

  /**
   * Pauses the queue, or with `kind` one kind of it, in every partition: once this resolves, no
   * worker starts a new job of it (claims check inside Redis, so a claim already blocked in
   * Redis, or one racing this call, starts nothing either); running jobs finish; enqueues go
   * on. The pause is kept in Redis until {@link resume}: it holds across worker and Redis
   * restarts (with persistence on). A pause that fails part way (Redis away) leaves some
   * partitions paused: `stats().paused` then says so; call it again. `by` records who paused
   * (a short label, `why()` reports it as `pausedBy`); a second pause keeps the first's time and label.
   */
  pause(options: PauseOptions = {}): Promise<void> {
    return pause(this.routing.contexts, options);
  }

  /**
   * Resumes the queue (or one kind) in every partition: workers blocked on the paused queue
   * wake at once, and a kind's parked jobs go back to the front of their lists, in batches of
   * `batch` (default 1000) per script call (jobs of the kind enqueued meanwhile may start
   * before the last batch).
   */
  resume(options: { kind?: string; batch?: number } = {}): Promise<void> {
    return resume(this.routing.contexts, options);
  }

  /**
   * Moves back, at most `batch` (default 1000) per call, the parked jobs of kinds that nothing
   * holds back any more (not paused, not limited): what a resume or setLimits cut short, or a
   * limit deleted by hand, leaves parked. `more` is true while such jobs are left. The
   * reclaimer's and the workers' sweeps run it; safe to run from any number of processes at
   * once.
   */
  unparkFreed(options: { batch?: number } = {}): Promise<{ unparked: number; more: boolean }> {
    return (this.sole ?? this.routing.whole('unparkFreed')).unparkFreed(options);
  }

  /**
   * Replaces the queue's rate limits and concurrency caps ({@link QueueLimits}; `{}` removes them),
   * obeyed by every worker's next claim; bad limits throw `JOBS_INVALID_ARGUMENT`, writing nothing.
   * They hold per partition: a limit of K starts per window lets N partitions start up to N×K
   * in all, and a queue cap of n lets them run N×n (Redis Cluster has no atomic step across
   * slots); a group's jobs all go to one partition, so group limits hold exactly.
   */
  setLimits(limits: QueueLimits): Promise<void> {
    return setLimits(this.routing.contexts, limits);
  }

  /**
   * A handler's pushback ({@link RateLimitedError}): no worker claims `job`'s kind for
   * `retryAfterMs`; `job` goes back to the front of its list, the attempt not counted. Returns
   * until when the kind is held (Redis clock, ms); throws {@link LostClaimError} if the claim is lost.
   */
  rateLimited(job: ClaimedJob, retryAfterMs: number, reason?: string): Promise<number> {
    return (this.sole ?? this.routing.holderOf(job)).rateLimited(job, retryAfterMs, reason);
  }

  /**
   * Records the progress of a job this process is running (JSON, at most 16 KiB), fenced by its
   * claim: stored on the job (`progress` in {@link getJob}) and published on the events channel
   * as `{"id":…,"status":"processing","progress":…}`. Throws {@link LostClaimError} when the
   * claim is no longer valid, and writes nothing.
   */
  progress(job: ClaimedJob, value: unknown): Promise<void> {
    return (this.sole ?? this.routing.holderOf(job)).progress(job, value);
  }

  /**
   * Stores log lines of a job this process is running (what a handler's `ctx.log` sends, a batch
   * per call), fenced by its claim, beside its hash and gone with it (see
   * {@link QueueOptions.jobLogs}): each line cut to `lineBytes`, the newest `lines` kept, the
   * others counted as trimmed. Read them with {@link logs}. Throws {@link LostClaimError} (and
   * stores nothing) when the claim was lost; does nothing when `jobLogs` is false.
   */
  appendLogs(job: ClaimedJob, lines: readonly LogLineInput[]): Promise<void> {
    return (this.sole ?? this.routing.holderOf(job)).appendLogs(job, lines);
  }

  /** Stops waits in flight and closes the event-log followers and the connections this queue opened (not yours). */
  close(): Promise<void> {
    return this.routing.close();
  }
}
