import { cancel, type CancelOutcome } from './commands/cancel.ts';
import { Claimer, type ClaimOptions } from './commands/claim.ts';
import { Completer, type CompleteAndClaimResult, type CompleteOutcome } from './commands/complete.ts';
import { ENQUEUE_BATCH, encodeEnqueue, enqueuePrepared, prepareEnqueueMany, writeEnqueues, type EnqueueRequest, type EnqueueResult, type PreparedEnqueue } from './commands/enqueue.ts';
import { extendLease, extendLeases } from './commands/extend.ts';
import { fail, type FailOptions, type FailOutcome } from './commands/fail.ts';
import { limits, rateLimited, setLimits } from './commands/limits.ts';
import { prepareFlow, readChildren, writeFlow, type ChildResult, type FlowRequest, type FlowResult } from './commands/flow.ts';
import { pause, PauseWatch, resume } from './commands/pause.ts';
import { progress } from './commands/progress.ts';
import type { QueueContext } from './commands/queue-context.ts';
import { reclaimStuck, type ReclaimResult } from './commands/reclaim.ts';
import { release } from './commands/release.ts';
import { retry, retryFailed } from './commands/retry.ts';
import { timeline, type JobTimeline } from './commands/timeline.ts';
import { promoteDue, purge, tidyHistory } from './commands/tidy.ts';
import { unparkFreed } from './commands/unpark.ts';
import { getJob, list, stats, type ListState, type QueueStats } from './commands/views.ts';
import type { EnqueueOptions } from './enqueue-options.ts';
import type { EventFollower, FollowOptions } from './event-follower.ts';
import type { ClaimedJob, JobRecord } from './job-record.ts';
import type { QueueKeys } from './keys.ts';
import type { KindName, Kinds } from './kinds.ts';
import type { LimitsState, QueueLimits } from './limits.ts';
import { QueueConnection } from './queue-connection.ts';
import type { JobQueueOptions, ResolvedQueueOptions } from './queue-options.ts';
import type { RedisClient } from './redis-connection.ts';
import { Schedules } from './schedules/schedules.ts';
import { TickBatcher } from './tick-batcher.ts';
import { assertWholeNumber } from './whole-number.ts';

export type { JobQueueOptions } from './queue-options.ts';

/** The context of each queue, for the commands of another queue object (a partitioned queue's). */
let contextOf: <P>(queue: JobQueue<P>) => QueueContext<P>;

/**
 * The low-level queue: the recipe's verbs (`enqueue`, `claim`, `complete`, `fail`,
 * `reclaimStuck`, `stats`, `getJob`) on the recipe's keys, each one atomic Lua script, with the
 * recipe's flaws fixed. Each verb lives in its own module under `commands/`; this class holds
 * the connection and hands each verb the queue's context. `@jobs/producer` and `@jobs/worker`
 * are thin layers over it.
 *
 * @example
 * ```ts
 * const queue = new JobQueue({ redis: 'redis://127.0.0.1:6379', queue: 'mail', kinds });
 * const id = await queue.enqueue('email', { recipient: 'alice@example.com' });
 * const [job] = await queue.claim({ blockMs: 1000 });
 * if (job) await queue.complete(job, { sent: true });
 * await queue.close();
 * ```
 */
export class JobQueue<P> {
  /** The queue's name. */
  readonly name: string;
  /** Every key of the queue. */
  readonly keys: QueueKeys;
  /** The job kinds. */
  readonly kinds: Kinds<P>;
  /** The queue's policy, defaults filled in. */
  readonly options: ResolvedQueueOptions;
  /** The client every command but the blocking wait goes through. */
  readonly client: RedisClient;
  /** The connection, waits, start-up checks and closing behind the verbs. */
  readonly #conn: QueueConnection<P>;
  readonly #ctx: QueueContext<P>;
  readonly #claimer: Claimer<P>;
  readonly #completer: Completer<P>;
  /** What the last claim said of the queue's pause and rate limit, and when its next job is due. */
  readonly #pause: PauseWatch;
  #schedules: Schedules<P> | undefined;
  /** Single enqueues of one tick, written in one script call. */
  readonly #enqueues: TickBatcher<PreparedEnqueue, EnqueueResult>;

  static {
    contextOf = (queue) => queue.#ctx;
  }

  constructor(options: JobQueueOptions<P>) {
    const conn = new QueueConnection(options);
    this.#conn = conn;
    this.#ctx = conn.ctx;
    this.name = conn.keys.name;
    this.keys = conn.keys;
    this.kinds = conn.kinds;
    this.options = conn.options;
    this.client = conn.client;
    this.#pause = new PauseWatch(this.keys);
    this.#claimer = new Claimer(this.#ctx, conn.waiter, () => conn.closed, this.#pause);
    this.#completer = new Completer(this.#ctx, this.#pause);
    this.#enqueues = new TickBatcher((jobs) => writeEnqueues(this.#ctx, jobs), ENQUEUE_BATCH);
  }

  /**
   * Enqueues one job after validating its payload against the kind's schema (nothing is written
   * when it is invalid). Returns the job's id; with an idempotency key still held, the id of the
   * job that holds it.
   */
  async enqueue<N extends KindName<P>>(kind: N, payload: P[N], options?: EnqueueOptions): Promise<string> {
    // Checked and encoded now, so a bad job fails alone; written with the others of this tick.
    const prepared = encodeEnqueue(this.#ctx, { kind, payload, ...(options !== undefined && { options }) } as unknown as EnqueueRequest<P>, 'payload', 'options');
    return (await this.#enqueues.add(prepared)).id;
  }

  /**
   * Enqueues many jobs in one round trip and one atomic script. Every payload is validated
   * before anything is written: one bad job and none is written.
   */
  async enqueueMany(jobs: readonly EnqueueRequest<P>[]): Promise<EnqueueResult[]> {
    return enqueuePrepared(this.#ctx, prepareEnqueueMany(this.#ctx, jobs));
  }

  /**
   * Enqueues a flow: a parent job and its children (of any kinds, nested as deep as you like),
   * in one round trip and one atomic script, all in this queue (one hash slot, so every step of
   * the flow is atomic). Every payload is validated first: one bad job and nothing is written.
   * The parent waits in status `waiting-children` until each child has completed, then runs
   * (after its delay, if any); its handler reads the children's results with {@link children}.
   * A child that fails for good fails the parent (`JOBS_CHILD_FAILED`), unless the parent says
   * `onChildFailure: 'ignore'`. Cancelling the parent cancels its unstarted children.
   * Returns the ids, in the shape of the request.
   */
  async enqueueFlow(flow: FlowRequest<P>): Promise<FlowResult> {
    return writeFlow(this.#ctx, prepareFlow(this.#ctx, flow));
  }

  /**
   * The children of flow parent `id`, by child id, each with its kind and status: `completed`
   * with its result, `failed` or `cancelled` with its error, or `waiting`. `{}` when the job has
   * no children (or is gone).
   */
  children(id: string): Promise<Record<string, ChildResult>> {
    return readChildren(this.#ctx, id);
  }

  /**
   * Claims up to `max` jobs in one round trip: due delayed jobs are promoted first, then each
   * claimed job is moved to processing and stamped with a token and a lease in the same atomic
   * step. With `blockMs`, waits for work (blocking in Redis, no polling) and returns as soon as
   * some is claimed; an empty array means none came in time.
   */
  claim(options: ClaimOptions = {}): Promise<ClaimedJob[]> {
    return this.#claimer.claim(options);
  }

  /**
   * Resolves when pending may hold work (a push, or work already there), after at most about
   * `timeoutMs`, or when `signal` aborts: the same blocking wait a blocked claim uses, for a
   * caller that watches several queues at once. Never rejects.
   */
  async waitForWork(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    assertWholeNumber('timeoutMs', timeoutMs, 0, 3_600_000);
    await this.#ctx.ready();
    await this.#conn.waiter.wait(this.#pause.bound(timeoutMs), signal, this.#pause.waitKey);
  }

  /**
   * Completes a claimed job with its result (stored as JSON). Throws {@link LostClaimError}
   * when this claim is no longer valid (the lease expired and the job was reclaimed, or it
   * was already completed or failed): nothing is changed then.
   */
  complete(job: ClaimedJob, result: unknown): Promise<void> {
    return this.#completer.complete(job, result);
  }

  /** Completes many claimed jobs in one round trip; per job, true when completed. Throws (and changes nothing) if any result cannot be stored. */
  completeMany(items: readonly { job: ClaimedJob; result: unknown }[]): Promise<boolean[]> {
    return this.#completer.completeMany(items);
  }

  /**
   * Completes many claimed jobs in one round trip, each on its own: a result that cannot be
   * stored (too large, not JSON) refuses that job only. Per job: `completed`, `lost` (the claim
   * was no longer valid), or `refused` with the error.
   */
  completeSettled(items: readonly { job: ClaimedJob; result: unknown }[]): Promise<CompleteOutcome[]> {
    return this.#completer.completeSettled(items);
  }

  /**
   * What a busy worker sends: completes `items` (each on its own, as {@link completeSettled}
   * does) and claims up to `max` next jobs, in one script call: one round trip and one atomic
   * step. Never waits for work; `max` 0 only completes. In durable mode a shortfall of replicas
   * is reported in `notReplicated`, not thrown, since the claimed jobs must reach the caller.
   */
  completeManyAndClaim(items: readonly { job: ClaimedJob; result: unknown }[], options: { max?: number } = {}): Promise<CompleteAndClaimResult> {
    return this.#completer.completeManyAndClaim(items, options);
  }

  /**
   * Completes a job and claims up to `max` next ones in the same round trip (never waits).
   * `completed` is false when the claim on `job` was no longer valid.
   */
  completeAndClaim(job: ClaimedJob, result: unknown, options: { max?: number } = {}): Promise<{ completed: boolean; next: ClaimedJob[] }> {
    return this.#completer.completeAndClaim(job, result, options);
  }

  /**
   * Records a failed attempt. The job is retried after the kind's backoff (or `retryDelayMs`)
   * while it has attempts left; a permanent failure, or the last attempt, moves it to failed
   * with `error` as its `last_error`. Throws {@link LostClaimError} when this claim is no
   * longer valid.
   */
  fail(job: ClaimedJob, error: unknown, options: FailOptions = {}): Promise<FailOutcome> {
    return fail(this.#ctx, job, error, options);
  }

  /**
   * Renews the leases of many claimed jobs in one round trip: each stays claimed for `leaseMs`
   * from now. Per job, the new deadline (Redis clock, ms), or null when the claim was lost.
   */
  extendLeases(jobs: readonly ClaimedJob[], leaseMs: number): Promise<(number | null)[]> {
    return extendLeases(this.#ctx, jobs, leaseMs);
  }

  /** Renews one job's lease for `leaseMs` from now; throws {@link LostClaimError} if lost. */
  extendLease(job: ClaimedJob, leaseMs: number): Promise<number> {
    return extendLease(this.#ctx, job, leaseMs);
  }

  /**
   * Hands claimed jobs back to pending at once, to the claim end, without counting the
   * interrupted attempt: for a worker that shuts down before they finish. Per job, true when
   * released (false when the claim was already lost).
   */
  release(jobs: readonly ClaimedJob[]): Promise<boolean[]> {
    return release(this.#ctx, jobs);
  }

  /**
   * One bounded reclaim sweep: jobs whose lease expired go back to pending (or to failed on
   * their last attempt), at most `batch` (default 500) per call; up to `scanBudget` processing
   * entries are checked for claims made by recipe clients, which carry no lease. Safe to run
   * from any number of processes at once.
   */
  reclaimStuck(options: { batch?: number; scanBudget?: number } = {}): Promise<ReclaimResult> {
    return reclaimStuck(this.#ctx, options);
  }

  /**
   * Moves due delayed jobs to pending, at most `batch`; returns how many, when the next is due
   * (null: none left), and the server's clock when it looked (both in ms, on that clock).
   */
  promoteDue(batch = 1_000): Promise<{ promoted: number; nextDueMs: number | null; nowMs: number }> {
    return promoteDue(this.#ctx, batch);
  }

  /**
   * Redrives dead-lettered jobs by id: back onto pending with a fresh set of attempts. Per id,
   * true when redriven, else the status that kept it (`not_found` when there is no such job).
   */
  retry(ids: readonly string[]): Promise<(true | string)[]> {
    return retry(this.#ctx, ids);
  }

  /**
   * Redrives up to `batch` of the oldest dead-lettered jobs (the far end of the failed list).
   * `more` is true while the failed list still holds ids.
   */
  retryFailed(options: { batch?: number } = {}): Promise<{ retried: string[]; more: boolean }> {
    return retryFailed(this.#ctx, options);
  }

  /**
   * Drops ids whose hash has expired from the far end of the completed and failed histories, at
   * most `batch` from each. Returns how many it dropped; the failed ones (jobs lost to
   * `failedTtlSeconds`) are counted in `failedDroppedTotal`.
   */
  tidyHistory(batch = 1_000): Promise<{ completed: number; failed: number }> {
    return tidyHistory(this.#ctx, batch);
  }

  /**
   * Deletes every key of the queue: its lists, sets, counters and job hashes. Not atomic: stop
   * the producers and workers of the queue first. Returns how many keys it deleted.
   */
  purge(): Promise<number> {
    return purge(this.#ctx);
  }

  /** Cancels a job that has not started (pending or delayed). */
  cancel(id: string): Promise<CancelOutcome> {
    return cancel(this.#ctx, id);
  }

  /** The job with id `id`, or null when there is none (or its hash has expired). */
  getJob(id: string): Promise<JobRecord | null> {
    return getJob(this.#ctx, id);
  }

  /**
   * One page of a list, read in one step: pending oldest first, delayed soonest first,
   * processing, completed and failed newest first. Ids whose hash expired are left out.
   * `waiting` pages through every job waiting to start in the order claims take them (see
   * {@link ListState}); its depth is `stats().waitingDepth`.
   */
  list(state: ListState, options: { offset?: number; limit?: number } = {}): Promise<JobRecord[]> {
    return list(this.#ctx, state, options);
  }

  /**
   * Follows the queue's event log (see {@link QueueOptions.eventLog}) from `from`: `'$'` (the
   * default) after the newest event when this call resolves, `'0'` from the oldest one kept, or
   * after a stream id, such as the `id` of the last event a follower delivered. The follower
   * is an async iterable on a connection of its own: it waits in Redis while caught up, reads on
   * from its last delivered id after a lost connection (no event twice, none skipped), and
   * delivers a `gap` item when the capped log was trimmed past its cursor. Stop it with
   * `close()`, `signal`, or by breaking out of the loop; closing the queue closes it too.
   */
  events(options: FollowOptions = {}): Promise<EventFollower> {
    return this.#conn.follow(options);
  }

  /**
   * A job's own events from the event log, oldest first (at most its last 64, or `limit`), read
   * in one step from the ids its hash keeps: no scan of the log. Null when there is no such job
   * (or its hash has expired); `events` is empty when the log is off.
   */
  timeline(id: string, options: { limit?: number } = {}): Promise<JobTimeline | null> {
    return timeline(this.#ctx, id, options);
  }

  /** Depths, counters and the oldest pending job's age, in one consistent snapshot. */
  stats(): Promise<QueueStats> {
    return stats(this.#ctx);
  }

  /** The queue's schedules: create, change, list, pause, resume and remove them. */
  get schedules(): Schedules<P> {
    this.#schedules ??= new Schedules(this.#ctx);
    return this.#schedules;
  }

  /**
   * Pauses the queue, or with `kind` one kind of it: once this resolves, no worker starts a new
   * job of it (claims check inside Redis, so a claim already blocked in Redis, or one racing this
   * call, starts nothing either); running jobs finish; enqueues go on. The pause is kept in Redis
   * until {@link resume}: it holds across worker and Redis restarts (with persistence on).
   */
  pause(options: { kind?: string } = {}): Promise<void> {
    return pause(this.#ctx, options);
  }

  /**
   * Resumes the queue (or one kind): workers blocked on the paused queue wake at once, and a
   * kind's parked jobs go back to the front of their lists, in batches of `batch` (default
   * 1000) per script call (jobs of the kind enqueued meanwhile may start before the last batch).
   */
  resume(options: { kind?: string; batch?: number } = {}): Promise<void> {
    return resume(this.#ctx, options);
  }

  /**
   * Moves back, at most `batch` (default 1000) per call, the parked jobs of kinds that nothing
   * holds back any more (not paused, not limited): what a resume or setLimits cut short, or a
   * limit deleted by hand, leaves parked. `more` is true while such jobs are left. The
   * reclaimer's and the workers' sweeps run it; safe to run from any number of processes at once.
   */
  unparkFreed(options: { batch?: number } = {}): Promise<{ unparked: number; more: boolean }> {
    return unparkFreed(this.#ctx, options);
  }

  /**
   * Replaces the queue's rate limits and concurrency caps ({@link QueueLimits}; `{}` removes them),
   * obeyed by every worker's next claim; bad limits throw `JOBS_INVALID_ARGUMENT`, writing nothing.
   */
  setLimits(limits: QueueLimits): Promise<void> {
    return setLimits(this.#ctx, limits);
  }

  /** The queue's limits as stored in Redis, and the kinds a handler's pushback holds back (until when). */
  limits(): Promise<LimitsState> {
    return limits(this.#ctx);
  }

  /**
   * A handler's pushback ({@link RateLimitedError}): no worker claims `job`'s kind for
   * `retryAfterMs`; `job` goes back to the front of its list, the attempt not counted. Returns
   * until when the kind is held (Redis clock, ms); throws {@link LostClaimError} if the claim is lost.
   */
  rateLimited(job: ClaimedJob, retryAfterMs: number, reason?: string): Promise<number> {
    return rateLimited(this.#ctx, job, retryAfterMs, reason);
  }

  /**
   * Records the progress of a job this process is running (JSON, at most 16 KiB), fenced by its
   * claim: stored on the job (`progress` in {@link getJob}) and published on the events channel
   * as `{"id":…,"status":"processing","progress":…}`. Throws {@link LostClaimError} when the
   * claim is no longer valid, and writes nothing.
   */
  progress(job: ClaimedJob, value: unknown): Promise<void> {
    return progress(this.#ctx, job, value);
  }

  /** Stops waits in flight and closes the event-log followers and the connections this queue opened (not yours). */
  close(): Promise<void> {
    return this.#conn.close();
  }
}

/** The context `queue` hands its commands: for a partitioned queue, which runs commands on its partitions. */
export function queueContext<P>(queue: JobQueue<P>): QueueContext<P> {
  return contextOf(queue);
}
