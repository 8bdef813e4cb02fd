import { Claimer, type ClaimOptions } from './commands/claim.ts';
import { Completer, type CompleteAndClaimResult } from './commands/complete.ts';
import { ENQUEUE_BATCH, writeEnqueues, type EnqueueResult, type PreparedEnqueue } from './commands/enqueue.ts';
import { extendLease, extendLeases, renewLeases } from './commands/extend.ts';
import { fail, type FailOptions, type FailOutcome } from './commands/fail.ts';
import { readChildren, type ChildResult } from './commands/flow.ts';
import { rateLimited } from './commands/limits.ts';
import { progress } from './commands/progress.ts';
import { snooze } from './commands/snooze.ts';
import { handOff, type HandOffOutcome } from './commands/hand-off.ts';
import { checkpoint, checkpointed } from './commands/checkpoint.ts';
import { appendLogs, type LogLineInput } from './commands/trail.ts';
import type { QueueContext } from './commands/queue-context.ts';
import { reclaimStuck, type ReclaimResult } from './commands/reclaim.ts';
import { release } from './commands/release.ts';
import { promoteDue } from './commands/tidy.ts';
import { unparkFreed } from './commands/unpark.ts';
import { ClaimOutlook } from './claim-outlook.ts';
import type { ClaimedJob } from './job-record.ts';
import type { QueueKeys } from './keys.ts';
import { QueueConnection } from './queue-connection.ts';
import type { PartitionOptions, ResolvedQueueOptions } from './queue-options.ts';
import type { RedisClient } from './redis-connection.ts';
import { Schedules } from './schedules/schedules.ts';
import { TickBatcher } from './tick-batcher.ts';
import { assertWholeNumber } from './whole-number.ts';

/**
 * One partition of a {@link Queue} (a plain queue is its only partition): the state its verbs
 * work with (context, claim and completion state, the tick's enqueue batch) and the calls a
 * worker lane makes on it, which the worker's lane type picks from here. Each method is one line
 * into its command; each verb's full documentation is on the `Queue` method of the same name.
 * Reached through `Queue.partitions`, never made directly.
 */
export class Partition<P> {
  /** The partition's queue name (`NAME:p<i>`, or the queue's own name for a plain queue). */
  readonly name: string;
  /** Every key of the partition. */
  readonly keys: QueueKeys;
  /** The queue's policy, defaults filled in. */
  readonly options: ResolvedQueueOptions;
  /** The connection every command but the blocking wait goes through (the queue's, shared). */
  readonly client: RedisClient;
  /** What the partition's commands work with. */
  readonly ctx: QueueContext<P>;
  /** The connection, waits, start-up checks and closing behind the verbs. */
  readonly conn: QueueConnection<P>;
  /** What the last claim said of the partition's pause and rate limit, and when its next job is due. */
  readonly outlook: ClaimOutlook;
  /** The claims, with their waits and what they learn of the partition. */
  readonly claimer: Claimer<P>;
  /** The completions, single and batched. */
  readonly completer: Completer<P>;
  /** Single enqueues of one tick, written in one script call. */
  readonly enqueues: TickBatcher<PreparedEnqueue, EnqueueResult>;
  #schedules: Schedules<P> | undefined;

  constructor(options: PartitionOptions<P>) {
    const conn = new QueueConnection(options);
    const ctx = conn.ctx;
    this.conn = conn;
    this.ctx = ctx;
    this.name = conn.keys.name;
    this.keys = conn.keys;
    this.options = conn.options;
    this.client = conn.client;
    this.outlook = new ClaimOutlook(this.keys);
    this.claimer = new Claimer(ctx, conn.waiter, () => conn.closed, this.outlook);
    this.completer = new Completer(ctx, this.outlook);
    this.enqueues = new TickBatcher((jobs) => writeEnqueues(ctx, jobs), ENQUEUE_BATCH);
  }

  /** The partition's schedules (a partitioned queue keeps them in partition 0). */
  get schedules(): Schedules<P> {
    this.#schedules ??= new Schedules(this.ctx);
    return this.#schedules;
  }

  /** Claims up to `max` jobs, waiting up to `blockMs` for work (see `Queue.claim`). */
  claim(options: ClaimOptions = {}): Promise<ClaimedJob[]> {
    return this.claimer.claim(options);
  }

  /** Resolves when pending may hold work, after about `timeoutMs` at most; never rejects (see `Queue.waitForWork`). */
  async waitForWork(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    assertWholeNumber('timeoutMs', timeoutMs, 0, 3_600_000);
    await this.ctx.ready();
    await this.conn.waiter.wait(this.outlook.bound(timeoutMs), signal, this.outlook.waitKey);
  }

  /** Completes `items`, each on its own, and claims up to `max` more in one script call (see `Queue.completeManyAndClaim`). */
  completeManyAndClaim(items: readonly { job: ClaimedJob; result: unknown }[], options: { max?: number } = {}): Promise<CompleteAndClaimResult> {
    return this.completer.completeManyAndClaim(items, options);
  }

  /** Records a failed attempt: a retry, or a dead letter (see `Queue.fail`). */
  fail(job: ClaimedJob, error: unknown, options: FailOptions = {}): Promise<FailOutcome> {
    return fail(this.ctx, job, error, options);
  }

  /** A handler's pushback: the kind waits `retryAfterMs`, the job goes back without using an attempt (see `Queue.rateLimited`). */
  rateLimited(job: ClaimedJob, retryAfterMs: number, reason?: string): Promise<number> {
    return rateLimited(this.ctx, job, retryAfterMs, reason);
  }

  /** Renews the leases of `jobs`; per job the new deadline, or null when the claim was lost (see `Queue.extendLeases`). */
  extendLeases(jobs: readonly ClaimedJob[], leaseMs: number): Promise<(number | null)[]> {
    return extendLeases(this.ctx, jobs, leaseMs);
  }

  /**
   * As {@link extendLeases}, with `'cancelled'` for a job cancelled while it ran (what a worker
   * needs to tell its handler why it must stop).
   */
  renewLeases(jobs: readonly ClaimedJob[], leaseMs: number): Promise<(number | 'cancelled' | null)[]> {
    return renewLeases(this.ctx, jobs, leaseMs);
  }

  /** Renews one lease; rejects with `JOBS_LOST_CLAIM` when the claim was lost, `JOBS_CANCELLED` when the job was cancelled (see `Queue.extendLease`). */
  extendLease(job: ClaimedJob, leaseMs: number): Promise<number> {
    return extendLease(this.ctx, job, leaseMs);
  }

  /** Records a running job's progress (see `Queue.progress`). */
  progress(job: ClaimedJob, value: unknown): Promise<void> {
    return progress(this.ctx, job, value);
  }

  /**
   * Puts a running job back to wait `delayMs` (0 to 30 days) without spending an attempt
   * (a handler's `ctx.snooze`): its claim ends, it goes to the delayed set, counted in
   * `snoozedTotal` and logged `snoozed`. Rejects with `JOBS_LOST_CLAIM` when the claim is no
   * longer this caller's, `JOBS_CANCELLED` when the job was cancelled while it ran. A resend
   * after a lost reply answers as the first call did.
   */
  snooze(job: ClaimedJob, delayMs: number): Promise<void> {
    return snooze(this.ctx, job, delayMs);
  }

  /**
   * Stores a running job's checkpoint (any JSON value, at most 64 KiB), fenced by its claim, for
   * its later attempts to resume from ({@link checkpointed}). Rejects with `JOBS_PAYLOAD_TOO_LARGE`
   * or `JOBS_NOT_SERIALIZABLE` for a bad value (nothing is written), `JOBS_LOST_CLAIM` when the
   * claim was lost, `JOBS_CANCELLED` when the job was cancelled while it ran.
   */
  checkpoint(job: ClaimedJob, state: unknown): Promise<void> {
    return checkpoint(this.ctx, job, state);
  }

  /** Job `id`'s last checkpoint (see {@link checkpoint}), parsed; undefined when it has none. One read. */
  checkpointed(id: string): Promise<unknown> {
    return checkpointed(this.ctx, id);
  }

  /**
   * Hands back a claimed job of kind `kind`, which the caller cannot run (a rolling deploy: a new
   * producer's kind reached an old worker), without spending an attempt: it waits in the delayed
   * set for a worker that knows the kind (a second when `liveWorkers` of the registry do, up to
   * 10 s when none does), and fails for good with `JOBS_UNKNOWN_KIND` once `graceMs` have passed
   * with no live worker for it. `known`: the caller's kinds, named in that failure.
   */
  handOff(job: ClaimedJob, kind: string, graceMs: number, liveWorkers: number, known: readonly string[]): Promise<HandOffOutcome> {
    return handOff(this.ctx, job, kind, graceMs, liveWorkers, known);
  }

  /** Stores a running job's log lines (see `Queue.appendLogs`). */
  appendLogs(job: ClaimedJob, lines: readonly LogLineInput[]): Promise<void> {
    return appendLogs(this.ctx, job, lines);
  }

  /** A flow parent's children by id, with how each settled (see `Queue.children`). */
  children(id: string): Promise<Record<string, ChildResult>> {
    return readChildren(this.ctx, id);
  }

  /** Hands claimed jobs back to pending without counting the attempt (see `Queue.release`). */
  release(jobs: readonly ClaimedJob[]): Promise<boolean[]> {
    return release(this.ctx, jobs);
  }

  /** One bounded sweep for expired leases (see `Queue.reclaimStuck`). */
  reclaimStuck(options: { batch?: number; scanBudget?: number } = {}): Promise<ReclaimResult> {
    return reclaimStuck(this.ctx, options);
  }

  /** One bounded call moving back the parked jobs of kinds no longer paused or limited (see `Queue.unparkFreed`). */
  unparkFreed(options: { batch?: number } = {}): Promise<{ unparked: number; more: boolean }> {
    return unparkFreed(this.ctx, options);
  }

  /** Moves due delayed jobs to pending, at most `batch` (see `Queue.promoteDue`). */
  promoteDue(batch = 1_000): Promise<{ promoted: number; nextDueMs: number | null; nowMs: number }> {
    return promoteDue(this.ctx, batch);
  }

  /** Stops waits in flight and closes the partition's followers (the shared connection stays). */
  close(): Promise<void> {
    return this.conn.close();
  }
}
