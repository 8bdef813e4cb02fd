import { Cluster, type Redis } from 'ioredis';
import { backoffDelayMs } from './backoff.ts';
import { resolveEnqueueOptions, type EnqueueOptions } from './enqueue-options.ts';
import { InvalidArgumentError, JOBS_ERROR_CODES, JobsError, LostClaimError, NotReplicatedError } from './errors.ts';
import { readClaimedJobs } from './claimed-job.ts';
import { parseJobRecord, pairsToObject, type ClaimedJob, type JobRecord } from './job-record.ts';
import { encodeJson } from './json.ts';
import { assertJobId, queueKeys, type QueueKeys } from './keys.ts';
import type { KindName, Kinds } from './kinds.ts';
import { SCRIPTS, pipeScript, registerScripts, runScript, type LuaScript, type RedisClient } from './lua.ts';
import { failedHistoryCap, resolveQueueOptions, type QueueOptions, type ResolvedQueueOptions } from './queue-options.ts';
import { assertRedisVersion, closeClient, connectRedis, duplicateClient, toJobsError, withRedisErrors, type RedisConnectionInput } from './redis-connection.ts';
import { claimTokenBase, randomHex } from './random-hex.ts';
import { masterAt, redirectionOf, refreshSlots } from './cluster-redirects.ts';
import { TickBatcher } from './tick-batcher.ts';
import { WorkWaiter } from './wait-for-work.ts';
import { Schedules } from './schedules/schedules.ts';
import { MAX_PROGRESS_BYTES, readPauseState, resumeInBatches } from './flow-control.ts';
import { applyLimits, limitFields, readDueField, readLimits, type LimitsState, type QueueLimits } from './limits.ts';
import { assertWholeNumber } from './whole-number.ts';

/** Options of {@link JobQueue}. */
export interface JobQueueOptions<P> extends QueueOptions {
  /** Where Redis is: a URL, ioredis options, or a client you own. */
  redis: RedisConnectionInput;
  /** The queue's name; its keys are `queue:{NAME}:*`. */
  queue: string;
  /** The job kinds this queue carries. */
  kinds: Kinds<P>;
  /** Client name shown by `CLIENT LIST`. Default `jobs:<queue>`. */
  connectionName?: string;
  /**
   * For connections @jobs opens (not a client you pass): a command without an answer for this
   * long fails with `JOBS_REDIS_UNAVAILABLE` instead of waiting for Redis forever. Default 10 s.
   */
  commandTimeoutMs?: number;
  /**
   * Appended to every id this queue makes (a partition of a {@link PartitionedQueue} marks its
   * ids with `.p<N>`, so a job's partition can be told from its id). Default none.
   */
  idSuffix?: string;
}

/** One job of {@link JobQueue.enqueueMany}. */
export type EnqueueRequest<P> = {
  [N in KindName<P>]: { kind: N; payload: P[N]; options?: EnqueueOptions };
}[KindName<P>];

/** What {@link JobQueue.enqueueMany} did with one job. */
export interface EnqueueResult {
  /** The job's id: the new job's, or, for an idempotency key still held, the earlier job's. */
  readonly id: string;
  /** False when an earlier job holds the idempotency key and nothing was written. */
  readonly created: boolean;
}

/** Options of {@link JobQueue.claim}. */
export interface ClaimOptions {
  /** Most jobs to claim in this call (one round trip). Default 1, at most 1000. */
  max?: number;
  /** Wait up to this long for work when none is pending. Default 0: do not wait. */
  blockMs?: number;
  /** Stops a wait early. */
  signal?: AbortSignal;
}

/** Options of {@link JobQueue.fail}. */
export interface FailOptions {
  /** Fail at once, with no retry. */
  permanent?: boolean;
  /** Delay before the retry; default from the kind's (or queue's) backoff policy. */
  retryDelayMs?: number;
}

/**
 * Most single enqueues written in one script call. A full batch goes out at once, mid-tick, so
 * with many enqueues in flight Redis runs one batch while the next is prepared (measured with
 * 64 in flight: batches of 32 ~70-85k jobs/s, of 500 ~50k, of 16 ~60k).
 */
const ENQUEUE_BATCH = 32;

/** One job, checked and encoded for the enqueue script (see {@link JobQueue.prepareEnqueue}). */
export interface PreparedEnqueue {
  readonly id: string;
  /** Its 4 script arguments: id, payload JSON, kind, options (see scripts/enqueue.lua). */
  readonly args: readonly string[];
  /** Its idempotency key in Redis, when it has one. */
  readonly idempotencyKey: string | undefined;
}

/** What {@link JobQueue.completeManyAndClaim} did. */
export interface CompleteAndClaimResult {
  /** Per item, as {@link JobQueue.completeSettled} reports it. */
  outcomes: CompleteOutcome[];
  /** The jobs claimed: the caller must run them (or release them). */
  next: ClaimedJob[];
  /** Durable mode only: set when fewer replicas than asked confirmed the call in time. */
  notReplicated?: NotReplicatedError;
}

/** What {@link JobQueue.completeSettled} did with one job. */
export type CompleteOutcome = { readonly status: 'completed' } | { readonly status: 'lost' } | { readonly status: 'refused'; readonly error: JobsError };

/** What {@link JobQueue.fail} did: retried at once, retry scheduled later, or dead-lettered. */
export type FailOutcome = 'retried' | 'delayed' | 'failed';

/** What {@link JobQueue.reclaimStuck} did. */
export interface ReclaimResult {
  /** Jobs whose lease expired, back on pending. */
  readonly reclaimed: readonly string[];
  /** Jobs whose lease expired on their last attempt, now in failed. */
  readonly deadLettered: readonly string[];
  /** Ids dropped from processing because their hash was gone. */
  readonly dropped: readonly string[];
  /** True when more leases had expired than one call handles: call again. */
  readonly more: boolean;
}

/** What {@link JobQueue.cancel} did. */
export type CancelOutcome = { readonly cancelled: true } | { readonly cancelled: false; readonly status: string };

/** The lists and sets a job can be in, for {@link JobQueue.list}. */
export type ListState = 'pending' | 'processing' | 'delayed' | 'completed' | 'failed';

const LIST_STATES: readonly ListState[] = ['pending', 'processing', 'delayed', 'completed', 'failed'];

/** Throws `JOBS_INVALID_ARGUMENT` (field `state`) unless `state` names a list a job can be in. */
export function assertListState(state: unknown): asserts state is ListState {
  if (!LIST_STATES.includes(state as ListState)) throw new InvalidArgumentError('state', `expected one of ${LIST_STATES.join(', ')}, got ${JSON.stringify(state)}`);
}

/** A snapshot of a queue, taken in one step. */
export interface QueueStats {
  readonly enqueuedTotal: number;
  readonly completedTotal: number;
  /** Jobs dead-lettered (moved to failed). */
  readonly failedTotal: number;
  /** Failed attempts that were retried. */
  readonly retriedTotal: number;
  /** Expired leases returned to pending. */
  readonly reclaimedTotal: number;
  readonly cancelledTotal: number;
  /** Dead-lettered jobs redriven to pending. */
  readonly redrivenTotal: number;
  /** Claimed jobs handed back by workers shutting down. */
  readonly releasedTotal: number;
  /** Ids found without a hash (or already finished) and dropped. */
  readonly droppedTotal: number;
  /**
   * Failed jobs deleted without an operator's redrive or purge: trimmed off a capped failed
   * list (`failedHistory`), or expired (`failedTtlSeconds`; counted when the id leaves the list).
   * Always 0 with the defaults, which keep every failed job.
   */
  readonly failedDroppedTotal: number;
  /** Jobs not started before their expiry, moved to failed (counted in `failedTotal` too). */
  readonly expiredTotal: number;
  /** Jobs a handler's RateLimitedError sent back (see {@link JobQueue.rateLimited}). */
  readonly rateLimitedTotal: number;
  /** The queue's rate limits and caps (see {@link JobQueue.setLimits}) and the pushbacks in force. */
  readonly limits: LimitsState;
  /** Groups with jobs waiting for their turn (see the enqueue option `group`). */
  readonly groupsWaiting: number;
  /** True while the queue is paused (see {@link JobQueue.pause}). */
  readonly paused: boolean;
  /** The kinds paused on their own. */
  readonly pausedKinds: readonly string[];
  /** Jobs waiting in the lists of priorities other than 0 (not in `pendingDepth`). */
  readonly prioritizedDepth: number;
  /** Jobs of paused or limited kinds set aside until their kind may start (not in `pendingDepth`). */
  readonly parkedDepth: number;
  /** Jobs in the pending list: those of priority 0, as the recipe sees them. */
  readonly pendingDepth: number;
  readonly processingDepth: number;
  readonly delayedDepth: number;
  readonly completedDepth: number;
  readonly failedDepth: number;
  /** How long the oldest pending job has waited, or null when none is pending. */
  readonly oldestPendingAgeMs: number | null;
  readonly visibilityMs: number;
  /** The Redis server's clock when the snapshot was taken. */
  readonly nowMs: number;
}

const FAIL_OUTCOMES: Record<number, FailOutcome> = { 1: 'retried', 2: 'failed', 3: 'delayed' };
const MAX_ERROR_CHARS = 4_096;

function errorText(error: unknown): string {
  const text = error instanceof Error ? (error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message) : String(error);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}...` : text;
}

/**
 * The low-level queue: the recipe's verbs (`enqueue`, `claim`, `complete`, `fail`,
 * `reclaimStuck`, `stats`, `getJob`) on the recipe's keys, each one atomic Lua script, with the
 * recipe's flaws fixed. `@jobs/producer` and `@jobs/worker` are thin layers over it.
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
  readonly #owned: boolean;
  readonly #waiter: WorkWaiter;
  #ready: Promise<unknown> | undefined;
  /** Set once the checks of {@link #ensureReady} passed. */
  #isReady = false;
  /** From the last claim: ms until the next delayed job was due (-1: none), and when that was. */
  #dueHint: { untilDueMs: number; atMs: number } | undefined;
  /**
   * The last claim found the queue paused, or over its rate limit: waits block on its resume
   * list, not on pending (its pending jobs would end every wait at once).
   */
  #pausedSeen = false;
  /** The last claim found the queue over its rate limit: a wait ends when the limit lets claims start again. */
  #limitedSeen = false;
  #closed = false;
  readonly #idSuffix: string;
  /** Single enqueues of one tick, written in one script call. */
  readonly #enqueues = new TickBatcher<PreparedEnqueue, EnqueueResult>((jobs) => this.#writeEnqueues(jobs), ENQUEUE_BATCH);

  constructor(options: JobQueueOptions<P>) {
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'expected an object');
    this.keys = queueKeys(options.queue);
    this.name = options.queue;
    if (options.kinds === undefined || typeof options.kinds.validate !== 'function') {
      throw new InvalidArgumentError('kinds', 'expected a registry made with defineKinds()');
    }
    this.kinds = options.kinds;
    this.options = resolveQueueOptions(options);
    this.#idSuffix = options.idSuffix ?? '';
    if (this.#idSuffix !== '' && !/^[A-Za-z0-9._:-]{1,16}$/.test(this.#idSuffix)) throw new InvalidArgumentError('idSuffix', 'expected 1 to 16 letters, digits, ".", "_", "-" or ":"');
    const commandTimeoutMs = assertWholeNumber('commandTimeoutMs', options.commandTimeoutMs ?? 10_000, 100, 3_600_000);
    const { client, owned } = connectRedis(options.redis, options.connectionName ?? `jobs:${options.queue}`, { commandTimeout: commandTimeoutMs });
    this.client = client;
    this.#owned = owned;
    registerScripts(client);
    // A blocking wait must end well within the command timeout, or the timeout would cut it off.
    this.#waiter = new WorkWaiter(() => duplicateClient(client), this.keys.pending, Math.min(5_000, Math.floor(commandTimeoutMs / 2)));
  }

  /**
   * Checks once that the server runs Redis 7 or newer, and that this name is not a partitioned
   * queue (whose jobs live in its partitions: writing to the name itself would strand them).
   */
  #ensureReady(): Promise<unknown> {
    if (this.#closed) return Promise.reject(new JobsError(JOBS_ERROR_CODES.CLOSED, `queue ${this.name} is closed`));
    this.#ready ??= (async () => {
      await assertRedisVersion(this.client);
      const partitions = await withRedisErrors(() => this.client.get(this.keys.partitions));
      if (partitions !== null && Number(partitions) > 1) {
        throw new InvalidArgumentError('partitions', `queue "${this.name}" is partitioned into ${partitions} (${this.keys.partitions}): open it with partitions: ${partitions}`);
      }
      this.#isReady = true;
    })().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /**
   * Runs a script. Once the queue is known ready the command is sent at once, in this call (so
   * a batch sent mid-tick is on the wire while the tick goes on); `coalesce` holds the socket's
   * writes to the end of the tick (see write-coalescing.ts).
   */
  #run(script: LuaScript, keys: readonly string[], args: readonly (string | number)[], coalesce = true): Promise<unknown> {
    if (this.#isReady && !this.#closed) return withRedisErrors(() => runScript(this.client, script, keys, args, coalesce));
    return this.#ensureReady().then(() => withRedisErrors(() => runScript(this.client, script, keys, args, coalesce)));
  }

  /**
   * Runs a write that acknowledges something (an enqueue, a completion, a failure). In durable
   * mode `WAIT` follows it in the same pipeline, on the same connection (in a cluster, the
   * queue's node): returns the reply and how many replicas hold the write. Otherwise the
   * replica count is `undefined`.
   */
  async #runAcknowledged(script: LuaScript, keys: readonly string[], args: readonly (string | number)[], coalesce = true): Promise<{ reply: unknown; replicas: number | undefined }> {
    const { replicas, timeoutMs } = this.options.durability;
    if (replicas === 0) return { reply: await this.#run(script, keys, args, coalesce), replicas: undefined };
    let withSource = false;
    // After ASK: the node to send the next attempt to, with ASKING before the script.
    let asking: Redis | undefined;
    let redirects = 0;
    for (;;) {
      try {
        const [reply, acknowledged] = await this.#pipeline((pipe) => {
          // Plain EVALSHA (or EVAL), not the registered command: on NOSCRIPT ioredis would resend
          // a registered script by itself, outside this pipeline, after WAIT had answered, and
          // the write would be acknowledged before any replica held it.
          if (withSource) pipe.eval(script.source, keys.length, ...keys, ...args);
          else pipe.evalsha(script.sha1, keys.length, ...keys, ...args);
          pipe.wait(replicas, timeoutMs);
        }, asking);
        return { reply, replicas: Number(acknowledged) };
      } catch (error) {
        if (!(error instanceof Error)) throw error;
        // The server lost its script cache (a restart, a failover, SCRIPT FLUSH): the script did
        // not run; send it with its source, WAIT again behind it.
        if (!withSource && error.message.startsWith('NOSCRIPT')) {
          withSource = true;
          continue;
        }
        // ioredis follows redirections for a pipeline only when its other commands are read-only,
        // and WAIT is not: after a failover or during a slot move every call would fail. A
        // redirected script did not run, so sending the pipeline again is safe. As ioredis does
        // for single commands: MOVED refreshes the slot map, ASK sends once to the node named,
        // TRYAGAIN waits, up to the client's maxRedirections.
        const client = this.client;
        const redirection = client instanceof Cluster ? redirectionOf(error) : undefined;
        if (!(client instanceof Cluster) || !redirection || (redirects += 1) > (client.options.maxRedirections ?? 16)) throw error;
        asking = undefined;
        if (redirection.kind === 'moved') await refreshSlots(client);
        else if (redirection.kind === 'tryagain') await new Promise((resolve) => setTimeout(resolve, client.options.retryDelayOnTryAgain || 100));
        else if (!(asking = await masterAt(client, redirection.address))) throw error;
      }
    }
  }

  /** Throws {@link NotReplicatedError} when durable mode asked for more replicas than confirmed. */
  #assertReplicated(what: string, replicas: number | undefined, ids: readonly string[] = []): void {
    const { replicas: required, timeoutMs } = this.options.durability;
    if (replicas !== undefined && replicas < required) throw new NotReplicatedError(what, replicas, required, timeoutMs, ids);
  }

  /**
   * Runs the queued scripts of `build` in one round trip and returns their replies in order; on
   * `asking` (a cluster node that answered ASK for them), right behind an `ASKING`.
   */
  async #pipeline(build: (pipe: ReturnType<RedisClient['pipeline']>) => void, asking?: Redis): Promise<unknown[]> {
    await this.#ensureReady();
    const pipe = (asking ?? this.client).pipeline();
    if (asking) pipe.asking();
    build(pipe);
    const replies = await withRedisErrors(async () => (await pipe.exec()) ?? []);
    return replies.slice(asking ? 1 : 0).map(([error, reply]) => {
      if (error) throw toJobsError(error);
      return reply;
    });
  }

  /**
   * '1' lets completions skip their events when nobody subscribes: exact on one server. In a
   * cluster a subscriber may sit on another node, where the script cannot see it: '0'.
   */
  get #onlyHeard(): string {
    return this.client instanceof Cluster ? '0' : '1';
  }

  get #channel(): string {
    return this.options.events ? this.keys.events : '';
  }

  /**
   * Enqueues one job after validating its payload against the kind's schema (nothing is written
   * when it is invalid). Returns the job's id; with an idempotency key still held, the id of the
   * job that holds it.
   */
  async enqueue<N extends KindName<P>>(kind: N, payload: P[N], options?: EnqueueOptions): Promise<string> {
    // Checked and encoded now, so a bad job fails alone; written with the others of this tick.
    const prepared = this.#prepareEnqueue({ kind, payload, ...(options !== undefined && { options }) } as unknown as EnqueueRequest<P>, 'payload', 'options');
    return (await this.#enqueues.add(prepared)).id;
  }

  /**
   * Enqueues many jobs in one round trip and one atomic script. Every payload is validated
   * before anything is written: one bad job and none is written.
   */
  async enqueueMany(jobs: readonly EnqueueRequest<P>[]): Promise<EnqueueResult[]> {
    if (!Array.isArray(jobs)) throw new InvalidArgumentError('jobs', 'expected an array');
    if (jobs.length === 0) return [];
    if (jobs.length > 10_000) throw new InvalidArgumentError('jobs', `at most 10000 jobs per call, got ${jobs.length}`);
    const prepared = jobs.map((job, index) => {
      if (typeof job !== 'object' || job === null) throw new InvalidArgumentError(`jobs[${index}]`, 'expected { kind, payload, options? }');
      return this.prepareEnqueue(job, jobs.length === 1 ? undefined : index);
    });
    return this.enqueuePrepared(prepared);
  }

  /**
   * Checks and encodes one job for {@link enqueuePrepared}, writing nothing; throws as
   * {@link enqueueMany} would (`at`: its index in the caller's batch, for the error's field).
   * For a caller that must check jobs bound for several queues before writing to any (a
   * partitioned queue's batch), so that no job is checked twice.
   */
  prepareEnqueue(job: EnqueueRequest<P>, at?: number): PreparedEnqueue {
    const prefix = at === undefined ? '' : `jobs[${at}].`;
    if (typeof job !== 'object' || job === null) throw new InvalidArgumentError(at === undefined ? 'job' : `jobs[${at}]`, 'expected { kind, payload, options? }');
    return this.#prepareEnqueue(job, `${prefix}payload`, `${prefix}options`);
  }

  /** Writes jobs from {@link prepareEnqueue} in one round trip and one atomic script. */
  async enqueuePrepared(prepared: readonly PreparedEnqueue[]): Promise<EnqueueResult[]> {
    if (prepared.length === 0) return [];
    const answers = await this.#writeEnqueues(prepared);
    const failed = answers.find((answer): answer is Error => answer instanceof Error);
    if (failed) {
      // One call, one answer: durable mode's shortfall names every id written.
      if (failed instanceof NotReplicatedError) throw new NotReplicatedError(`${prepared.length} jobs`, failed.acknowledged, failed.required, this.options.durability.timeoutMs, answers.map((answer, i) => (answer instanceof Error ? (prepared[i] as PreparedEnqueue).id : answer.id)));
      throw failed;
    }
    return answers as EnqueueResult[];
  }

  /** Validates and encodes one job for the enqueue script (throws, writing nothing, when it is bad). */
  #prepareEnqueue(job: EnqueueRequest<P>, payloadField: string, optionsField: string): PreparedEnqueue {
    const json = this.kinds.encode(job.kind, job.payload, payloadField);
    const kindOptions = this.kinds.options(job.kind);
    const options = resolveEnqueueOptions(job.options, this.options.idempotencyTtlMs, optionsField);
    const id = this.#idSuffix === '' ? randomHex() : randomHex() + this.#idSuffix;
    const maxAttempts = options.maxAttempts ?? kindOptions.maxAttempts ?? 0;
    const visibilityMs = options.visibilityMs ?? kindOptions.visibilityMs ?? 0;
    const idempotencyKey = options.idempotencyKey === undefined ? undefined : this.keys.idempotency(options.idempotencyKey);
    const priority = options.priority ?? kindOptions.priority ?? 0;
    // Most jobs use every default: one empty argument then, not eight zeros.
    let packed =
      options.delayMs === 0 && options.runAtMs === 0 && maxAttempts === 0 && visibilityMs === 0 && idempotencyKey === undefined && priority === 0 && options.ttlMs === 0 && options.expiresAtMs === 0 && options.group === undefined
        ? ''
        : `${options.delayMs},${options.runAtMs},${maxAttempts},${visibilityMs},${idempotencyKey === undefined ? 0 : options.idempotencyTtlMs},${priority},${options.ttlMs},${options.expiresAtMs}`;
    if (options.group !== undefined) packed += `|${options.group}`;
    return { id, args: [id, json, job.kind, packed], idempotencyKey };
  }

  /**
   * Writes prepared jobs in one script call. Per job its result, or (durable mode) a
   * {@link NotReplicatedError} naming it: written on the primary, not yet on the replicas.
   */
  async #writeEnqueues(jobs: readonly PreparedEnqueue[]): Promise<(EnqueueResult | Error)[]> {
    const keys = [this.keys.pending, this.keys.delayed, this.keys.stats];
    const args: string[] = [String(jobs.length), this.keys.jobPrefix];
    for (const job of jobs) {
      if (job.idempotencyKey !== undefined) keys.push(job.idempotencyKey);
      for (const arg of job.args) args.push(arg);
    }
    // Not held to the end of the tick: enqueues are batched already, and a full batch should
    // reach Redis while the tick's other calls are still being prepared.
    const { reply, replicas } = await this.#runAcknowledged(SCRIPTS.enqueue, keys, args, false);
    const values = reply as (string | number)[];
    const results: (EnqueueResult | Error)[] = [];
    for (let i = 0; i < values.length; i += 2) results.push({ id: String(values[i]), created: Number(values[i + 1]) === 1 });
    const { replicas: required, timeoutMs } = this.options.durability;
    if (replicas !== undefined && replicas < required) {
      return results.map((result) => new NotReplicatedError(`job ${(result as EnqueueResult).id}`, replicas, required, timeoutMs, [(result as EnqueueResult).id]));
    }
    return results;
  }

  #claimArgs(max: number): (string | number)[] {
    const o = this.options;
    return [this.keys.jobPrefix, o.visibilityMs, o.maxAttempts, max, claimTokenBase(), o.failedTtlSeconds, o.failedHistory, this.#channel];
  }

  #claimKeys(): string[] {
    return [this.keys.pending, this.keys.processing, this.keys.leases, this.keys.stats, this.keys.delayed, this.keys.failed, this.keys.flow];
  }

  /**
   * Notes what a claim reply's second value says (see {@link readDueField}): the queue's pause,
   * or its rate limit (then the next due time is when it lets claims start again). Returns the
   * next due time, -1 for none.
   */
  #noteDue(value: number): number {
    const due = readDueField(value);
    this.#pausedSeen = due.paused || due.limitedUntilMs > 0;
    this.#limitedSeen = due.limitedUntilMs > 0;
    return due.dueMs;
  }

  #promoteKeys(): string[] {
    return [this.keys.delayed, this.keys.pending];
  }

  /**
   * Claims up to `max` jobs in one round trip: due delayed jobs are promoted first, then each
   * claimed job is moved to processing and stamped with a token and a lease in the same atomic
   * step. With `blockMs`, waits for work (blocking in Redis, no polling) and returns as soon as
   * some is claimed; an empty array means none came in time.
   */
  async claim(options: ClaimOptions = {}): Promise<ClaimedJob[]> {
    const max = assertWholeNumber('max', options.max ?? 1, 1, 1_000);
    const blockMs = assertWholeNumber('blockMs', options.blockMs ?? 0, 0, 3_600_000);
    const deadline = Date.now() + blockMs;
    let nextDueMs = -1;
    let nowMs = 0;
    for (;;) {
      const remaining = deadline - Date.now();
      // How long until the next delayed job is due: from this call's last claim, else from the
      // previous call's (then the wait starts at once: a push wakes it, and the claim behind it
      // runs either way); with neither, claim once first to learn it.
      const hint = this.#dueHint;
      let untilDue: number | undefined;
      if (nowMs !== 0) untilDue = nextDueMs >= 0 ? Math.max(1, nextDueMs - nowMs) : remaining;
      else if (hint) untilDue = hint.untilDueMs >= 0 ? Math.max(1, hint.untilDueMs - (Date.now() - hint.atMs)) : remaining;
      let reply: unknown[];
      if (untilDue === undefined || remaining <= 0) {
        reply = (await this.#run(SCRIPTS.claim, this.#claimKeys(), this.#claimArgs(max))) as unknown[];
      } else {
        // Wake for the next delayed job too; a delayed job is not in pending, so no push wakes us.
        // A paused queue waits on its resume list: its pending jobs would end every wait at once.
        await this.#ensureReady();
        const blockOn = this.#pausedSeen ? this.keys.resume : this.keys.pending;
        const claimed = await this.#waiter.waitThenRun(this.#pausedSeen && !this.#limitedSeen ? remaining : Math.min(remaining, untilDue), SCRIPTS.claim, this.#claimKeys(), this.#claimArgs(max), options.signal, blockOn);
        reply = claimed ?? ((await this.#run(SCRIPTS.claim, this.#claimKeys(), this.#claimArgs(max))) as unknown[]);
      }
      nowMs = Number(reply[0]);
      nextDueMs = this.#noteDue(Number(reply[1]));
      this.#dueHint = { untilDueMs: nextDueMs >= 0 ? nextDueMs - nowMs : -1, atMs: Date.now() };
      const jobs = readClaimedJobs(reply, 2, nowMs);
      if (jobs.length > 0 || deadline - Date.now() <= 0 || this.#closed || options.signal?.aborted) return jobs;
    }
  }

  /**
   * Resolves when pending may hold work (a push, or work already there), after at most about
   * `timeoutMs`, or when `signal` aborts: the same blocking wait a blocked claim uses, for a
   * caller that watches several queues at once. Never rejects.
   */
  async waitForWork(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    assertWholeNumber('timeoutMs', timeoutMs, 0, 3_600_000);
    await this.#ensureReady();
    const hint = this.#dueHint;
    const untilLimitEnds = this.#limitedSeen && hint && hint.untilDueMs >= 0 ? Math.max(1, hint.untilDueMs - (Date.now() - hint.atMs)) : timeoutMs;
    await this.#waiter.wait(Math.min(timeoutMs, untilLimitEnds), signal, this.#pausedSeen ? this.keys.resume : this.keys.pending);
  }

  #encodeResult(result: unknown, field: string): string {
    return encodeJson(result === undefined ? null : result, field, this.options.maxResultBytes);
  }

  #completeArgs(items: readonly { job: ClaimedJob; json: string }[], args: (string | number)[]): (string | number)[] {
    for (const { job, json } of items) args.push(job.id, job.token, json);
    return args;
  }

  /** Runs the completion script (scripts/complete.lua) on `items`: per item, true when completed; and the replicas that confirmed it (durable mode). */
  async #runComplete(items: readonly { job: ClaimedJob; json: string }[], coalesce: boolean): Promise<{ completed: boolean[]; replicas: number | undefined }> {
    const keys = [this.keys.processing, this.keys.completed, this.keys.leases, this.keys.stats];
    const args = this.#completeArgs(items, [this.keys.jobPrefix, this.options.completedTtlSeconds, this.options.completedHistory, this.#channel, this.#onlyHeard]);
    const { reply, replicas } = await this.#runAcknowledged(SCRIPTS.complete, keys, args, coalesce);
    return { completed: (reply as unknown[]).map((code) => Number(code) === 1), replicas };
  }

  async #completeEncoded(items: readonly { job: ClaimedJob; json: string }[]): Promise<boolean[]> {
    if (items.length === 0) return [];
    const { completed, replicas } = await this.#runComplete(items, true);
    this.#assertReplicated(items.length === 1 ? `the completion of job ${items[0]?.job.id}` : `${items.length} completions`, replicas);
    return completed;
  }

  /**
   * Completes a claimed job with its result (stored as JSON). Throws {@link LostClaimError}
   * when this claim is no longer valid (the lease expired and the job was reclaimed, or it
   * was already completed or failed): nothing is changed then.
   */
  async complete(job: ClaimedJob, result: unknown): Promise<void> {
    const [ok] = await this.completeMany([{ job, result }]);
    if (!ok) throw new LostClaimError(job.id, 'complete');
  }

  /** Completes many claimed jobs in one round trip; per job, true when completed. Throws (and changes nothing) if any result cannot be stored. */
  async completeMany(items: readonly { job: ClaimedJob; result: unknown }[]): Promise<boolean[]> {
    const encoded = items.map(({ job, result }, index) => ({ job, json: this.#encodeResult(result, items.length === 1 ? 'result' : `items[${index}].result`) }));
    return this.#completeEncoded(encoded);
  }

  /** Encodes each result on its own: one that cannot be stored refuses that job only. */
  #encodeSettled(items: readonly { job: ClaimedJob; result: unknown }[], outcomes: CompleteOutcome[]): { job: ClaimedJob; json: string; index: number }[] {
    const accepted: { job: ClaimedJob; json: string; index: number }[] = [];
    items.forEach(({ job, result }, index) => {
      try {
        accepted.push({ job, json: this.#encodeResult(result, 'result'), index });
      } catch (error) {
        outcomes[index] = { status: 'refused', error: error as JobsError };
      }
    });
    return accepted;
  }

  /**
   * Completes many claimed jobs in one round trip, each on its own: a result that cannot be
   * stored (too large, not JSON) refuses that job only. Per job: `completed`, `lost` (the claim
   * was no longer valid), or `refused` with the error.
   */
  async completeSettled(items: readonly { job: ClaimedJob; result: unknown }[]): Promise<CompleteOutcome[]> {
    const outcomes: CompleteOutcome[] = new Array(items.length);
    const accepted = this.#encodeSettled(items, outcomes);
    const done = await this.#completeEncoded(accepted);
    accepted.forEach(({ index }, i) => {
      outcomes[index] = { status: done[i] ? 'completed' : 'lost' };
    });
    return outcomes;
  }

  /**
   * What a busy worker sends: completes `items` (each on its own, as {@link completeSettled}
   * does) and claims up to `max` next jobs, in one script call: one round trip and one atomic
   * step. Never waits for work; `max` 0 only completes. In durable mode a shortfall of replicas
   * is reported in `notReplicated`, not thrown, since the claimed jobs must reach the caller.
   */
  async completeManyAndClaim(items: readonly { job: ClaimedJob; result: unknown }[], options: { max?: number } = {}): Promise<CompleteAndClaimResult> {
    const max = assertWholeNumber('max', options.max ?? 1, 0, 1_000);
    const outcomes: CompleteOutcome[] = new Array(items.length);
    return this.#completeEncodedAndClaim(this.#encodeSettled(items, outcomes), outcomes, max);
  }

  /** {@link completeManyAndClaim} for results already encoded; fills in `outcomes` at each index. */
  async #completeEncodedAndClaim(accepted: readonly { job: ClaimedJob; json: string; index: number }[], outcomes: CompleteOutcome[], max: number): Promise<CompleteAndClaimResult> {
    if (accepted.length === 0 && max === 0) return { outcomes, next: [] };
    let completed: boolean[];
    let next: ClaimedJob[] = [];
    let replicas: number | undefined;
    if (max === 0) {
      // Nothing to claim (a worker at low load, mostly): the completion script alone, which is
      // complete-and-claim without its claim (some 10k fewer instructions in redis-server per
      // lone completion: fewer arguments, fewer routines defined per call). A lone completion
      // leaves at once: held to the end of the tick, it waited behind whatever else the tick
      // did, and its round trip is the job's latency. Busier calls still share the tick's write.
      ({ completed, replicas } = await this.#runComplete(accepted, accepted.length !== 1));
    } else {
      const o = this.options;
      const keys = [this.keys.pending, this.keys.processing, this.keys.leases, this.keys.stats, this.keys.delayed, this.keys.completed, this.keys.failed, this.keys.flow];
      const args = this.#completeArgs(accepted, [this.keys.jobPrefix, o.visibilityMs, o.maxAttempts, max, claimTokenBase(), o.completedTtlSeconds, o.completedHistory, this.#channel, this.#onlyHeard, o.failedTtlSeconds, o.failedHistory]);
      const sent = await this.#runAcknowledged(SCRIPTS['complete-and-claim'], keys, args);
      const reply = sent.reply as unknown[];
      completed = accepted.map((_, i) => Number(reply[3 + i]) === 1);
      next = readClaimedJobs(reply, 3 + Number(reply[2]), Number(reply[0]));
      const nextDue = this.#noteDue(Number(reply[1]));
      if (next.length === 0) this.#dueHint = { untilDueMs: nextDue >= 0 ? nextDue - Number(reply[0]) : -1, atMs: Date.now() };
      replicas = sent.replicas;
    }
    accepted.forEach(({ index }, i) => {
      outcomes[index] = { status: completed[i] ? 'completed' : 'lost' };
    });
    const result: CompleteAndClaimResult = { outcomes, next };
    // Never thrown here: the jobs just claimed must reach the caller.
    try {
      this.#assertReplicated(`${accepted.length} completion(s)`, replicas);
    } catch (error) {
      result.notReplicated = error as NotReplicatedError;
    }
    return result;
  }

  /**
   * Completes a job and claims up to `max` next ones in the same round trip (never waits).
   * `completed` is false when the claim on `job` was no longer valid.
   */
  async completeAndClaim(job: ClaimedJob, result: unknown, options: { max?: number } = {}): Promise<{ completed: boolean; next: ClaimedJob[] }> {
    const max = assertWholeNumber('max', options.max ?? 1, 1, 1_000);
    // A result that cannot be stored throws here, as complete() does, and nothing is claimed.
    const json = this.#encodeResult(result, 'result');
    const { outcomes, next } = await this.#completeEncodedAndClaim([{ job, json, index: 0 }], new Array<CompleteOutcome>(1), max);
    return { completed: outcomes[0]?.status === 'completed', next };
  }

  /**
   * Records a failed attempt. The job is retried after the kind's backoff (or `retryDelayMs`)
   * while it has attempts left; a permanent failure, or the last attempt, moves it to failed
   * with `error` as its `last_error`. Throws {@link LostClaimError} when this claim is no
   * longer valid.
   */
  async fail(job: ClaimedJob, error: unknown, options: FailOptions = {}): Promise<FailOutcome> {
    const permanent = options.permanent === true;
    let delay: number;
    if (options.retryDelayMs !== undefined) {
      delay = assertWholeNumber('retryDelayMs', options.retryDelayMs, 0, 365 * 86_400_000);
    } else {
      const kindBackoff = job.kind !== undefined && this.kinds.has(job.kind) ? this.kinds.options(job.kind).backoff : undefined;
      delay = backoffDelayMs(kindBackoff ?? this.options.backoff, job.attempts);
    }
    const keys = [this.keys.job(job.id), this.keys.processing, this.keys.pending, this.keys.delayed, this.keys.failed, this.keys.leases, this.keys.stats];
    const args = [
      this.keys.jobPrefix,
      job.id,
      job.token,
      errorText(error),
      delay,
      permanent ? 1 : 0,
      this.options.maxAttempts,
      this.options.failedTtlSeconds,
      failedHistoryCap(this.options),
      this.#channel,
    ];
    const { reply, replicas } = await this.#runAcknowledged(SCRIPTS.fail, keys, args);
    const outcome = FAIL_OUTCOMES[Number(reply)];
    if (outcome === undefined) throw new LostClaimError(job.id, 'fail');
    this.#assertReplicated(`the failed attempt of job ${job.id}`, replicas);
    return outcome;
  }

  /**
   * Renews the leases of many claimed jobs in one round trip: each stays claimed for `leaseMs`
   * from now. Per job, the new deadline (Redis clock, ms), or null when the claim was lost.
   */
  async extendLeases(jobs: readonly ClaimedJob[], leaseMs: number): Promise<(number | null)[]> {
    assertWholeNumber('leaseMs', leaseMs, 1, 12 * 3_600_000);
    if (jobs.length === 0) return [];
    const keys = [this.keys.leases, ...jobs.map((job) => this.keys.job(job.id))];
    const args: (string | number)[] = [leaseMs, this.keys.prefix];
    for (const job of jobs) args.push(job.id, job.token);
    const reply = (await this.#run(SCRIPTS.extend, keys, args)) as number[];
    return reply.map((deadline) => (Number(deadline) > 0 ? Number(deadline) : null));
  }

  /** Renews one job's lease for `leaseMs` from now; throws {@link LostClaimError} if lost. */
  async extendLease(job: ClaimedJob, leaseMs: number): Promise<number> {
    const [deadline] = await this.extendLeases([job], leaseMs);
    if (deadline === null || deadline === undefined) throw new LostClaimError(job.id, 'extend the lease of');
    return deadline;
  }

  /**
   * Hands claimed jobs back to pending at once, to the claim end, without counting the
   * interrupted attempt: for a worker that shuts down before they finish. Per job, true when
   * released (false when the claim was already lost).
   */
  async release(jobs: readonly ClaimedJob[]): Promise<boolean[]> {
    if (jobs.length === 0) return [];
    const keys = [this.keys.processing, this.keys.pending, this.keys.leases, this.keys.stats, ...jobs.map((job) => this.keys.job(job.id))];
    const args: (string | number)[] = [this.#channel, this.keys.jobPrefix];
    for (const job of jobs) args.push(job.id, job.token);
    const reply = (await this.#run(SCRIPTS.release, keys, args)) as number[];
    return reply.map((code) => Number(code) === 1);
  }

  /**
   * One bounded reclaim sweep: jobs whose lease expired go back to pending (or to failed on
   * their last attempt), at most `batch` (default 500) per call; up to `scanBudget` processing entries are
   * checked for claims made by recipe clients, which carry no lease. Safe to run from any
   * number of processes at once.
   */
  async reclaimStuck(options: { batch?: number; scanBudget?: number } = {}): Promise<ReclaimResult> {
    const batch = assertWholeNumber('batch', options.batch ?? 500, 1, 100_000);
    const scanBudget = assertWholeNumber('scanBudget', options.scanBudget ?? 100, 0, 100_000);
    const keys = [this.keys.pending, this.keys.processing, this.keys.leases, this.keys.failed, this.keys.stats, this.keys.reclaimCursor];
    const args = [
      this.keys.jobPrefix,
      batch,
      this.options.visibilityMs,
      this.options.maxAttempts,
      this.options.failedTtlSeconds,
      failedHistoryCap(this.options),
      this.#channel,
      scanBudget,
    ];
    const [reclaimed, deadLettered, dropped, more] = (await this.#run(SCRIPTS.reclaim, keys, args)) as [string[], string[], string[], number];
    return { reclaimed, deadLettered, dropped, more: Number(more) === 1 };
  }

  /**
   * Moves due delayed jobs to pending, at most `batch`; returns how many, when the next is due
   * (null: none left), and the server's clock when it looked (both in ms, on that clock).
   */
  async promoteDue(batch = 1_000): Promise<{ promoted: number; nextDueMs: number | null; nowMs: number }> {
    assertWholeNumber('batch', batch, 1, 100_000);
    const [promoted, nextDue, now] = (await this.#run(SCRIPTS.promote, this.#promoteKeys(), [this.keys.jobPrefix, batch])) as [number, number, number];
    return { promoted: Number(promoted), nextDueMs: Number(nextDue) >= 0 ? Number(nextDue) : null, nowMs: Number(now) };
  }

  /**
   * Redrives dead-lettered jobs by id: back onto pending with a fresh set of attempts. Per id,
   * true when redriven, else the status that kept it (`not_found` when there is no such job).
   */
  async retry(ids: readonly string[]): Promise<(true | string)[]> {
    if (ids.length === 0) return [];
    ids.forEach((id, index) => assertJobId(id, `ids[${index}]`));
    const keys = [this.keys.failed, this.keys.pending, this.keys.stats, ...ids.map((id) => this.keys.job(id))];
    const reply = (await this.#run(SCRIPTS.retry, keys, [this.keys.jobPrefix, ...ids])) as (number | string)[];
    return reply.map((code) => (Number(code) === 1 ? true : String(code) || 'not_found'));
  }

  /**
   * Redrives up to `batch` of the oldest dead-lettered jobs (the far end of the failed list).
   * `more` is true while the failed list still holds ids.
   */
  async retryFailed(options: { batch?: number } = {}): Promise<{ retried: string[]; more: boolean }> {
    const batch = assertWholeNumber('batch', options.batch ?? 500, 1, 10_000);
    await this.#ensureReady();
    const ids = await withRedisErrors(() => this.client.lrange(this.keys.failed, -batch, -1));
    const outcomes = await this.retry(ids);
    const remaining = await withRedisErrors(() => this.client.llen(this.keys.failed));
    return { retried: ids.filter((_, index) => outcomes[index] === true), more: remaining > 0 };
  }

  /**
   * Drops ids whose hash has expired from the far end of the completed and failed histories, at
   * most `batch` from each. Returns how many it dropped; the failed ones (jobs lost to
   * `failedTtlSeconds`) are counted in `failedDroppedTotal`.
   */
  async tidyHistory(batch = 1_000): Promise<{ completed: number; failed: number }> {
    assertWholeNumber('batch', batch, 1, 100_000);
    const [completed, failed] = await this.#pipeline((pipe) => {
      pipeScript(pipe, SCRIPTS.tidy, [this.keys.completed, this.keys.stats], [this.keys.jobPrefix, batch, '']);
      pipeScript(pipe, SCRIPTS.tidy, [this.keys.failed, this.keys.stats], [this.keys.jobPrefix, batch, 'failed_dropped_total']);
    });
    return { completed: Number(completed), failed: Number(failed) };
  }

  /**
   * Deletes every key of the queue: its lists, sets, counters and job hashes. Not atomic: stop
   * the producers and workers of the queue first. Returns how many keys it deleted.
   */
  async purge(): Promise<number> {
    await this.#ensureReady();
    const nodes: Redis[] = this.client instanceof Cluster ? this.client.nodes('master') : [this.client];
    let deleted = 0;
    for (const node of nodes) {
      let cursor = '0';
      do {
        // The name holds no glob characters (assertQueueName), so the pattern is this queue's only.
        const [next, keys] = await withRedisErrors(() => node.scan(cursor, 'MATCH', `${this.keys.prefix}*`, 'COUNT', 1_000));
        cursor = next;
        if (keys.length > 0) deleted += await withRedisErrors(() => node.unlink(...keys));
      } while (cursor !== '0');
    }
    return deleted;
  }

  /** Cancels a job that has not started (pending or delayed). */
  async cancel(id: string): Promise<CancelOutcome> {
    assertJobId(id);
    const keys = [this.keys.job(id), this.keys.pending, this.keys.delayed, this.keys.stats];
    const [cancelled, status] = (await this.#run(SCRIPTS.cancel, keys, [id, this.options.cancelledTtlSeconds, this.#channel, this.keys.jobPrefix])) as [number, string?];
    if (Number(cancelled) === 1) return { cancelled: true };
    return { cancelled: false, status: status ? status : 'not_found' };
  }

  /** The job with id `id`, or null when there is none (or its hash has expired). */
  async getJob(id: string): Promise<JobRecord | null> {
    assertJobId(id);
    await this.#ensureReady();
    const fields = await withRedisErrors(() => this.client.hgetall(this.keys.job(id)));
    return Object.keys(fields).length === 0 ? null : parseJobRecord(id, fields);
  }

  /**
   * One page of a list, read in one step: pending oldest first, delayed soonest first,
   * processing, completed and failed newest first. Ids whose hash expired are left out.
   */
  async list(state: ListState, options: { offset?: number; limit?: number } = {}): Promise<JobRecord[]> {
    const offset = assertWholeNumber('offset', options.offset ?? 0, 0, Number.MAX_SAFE_INTEGER);
    const limit = assertWholeNumber('limit', options.limit ?? 50, 1, 1_000);
    assertListState(state);
    const key = this.keys[state];
    const range =
      state === 'pending'
        ? [-(offset + limit), -(offset + 1), '1']
        : [offset, offset + limit - 1, '0'];
    const reply = (await this.#run(SCRIPTS.peek, [key], [this.keys.jobPrefix, state === 'delayed' ? 'zset' : 'list', ...range])) as string[][];
    return reply.map((entry) => parseJobRecord(entry[0] as string, pairsToObject(entry, 1)));
  }

  /** Depths, counters and the oldest pending job's age, in one consistent snapshot. */
  async stats(): Promise<QueueStats> {
    const keys = [this.keys.pending, this.keys.processing, this.keys.delayed, this.keys.completed, this.keys.failed, this.keys.stats, this.keys.flow];
    const [nowMs, pending, processing, delayed, completed, failed, oldest, counters, flow, prioritized, parked, groups] = (await this.#run(SCRIPTS.stats, keys, [this.keys.jobPrefix])) as [
      number, number, number, number, number, number, number, string[], string[], number, number, number,
    ];
    const c = pairsToObject(counters);
    const pause = readPauseState(flow);
    const count = (field: string): number => Number(c[field] ?? 0);
    return {
      enqueuedTotal: count('enqueued_total'),
      completedTotal: count('completed_total'),
      failedTotal: count('failed_total'),
      retriedTotal: count('retried_total'),
      reclaimedTotal: count('reclaimed_total'),
      cancelledTotal: count('cancelled_total'),
      releasedTotal: count('released_total'),
      redrivenTotal: count('redriven_total'),
      droppedTotal: count('dropped_total'),
      failedDroppedTotal: count('failed_dropped_total'),
      expiredTotal: count('expired_total'),
      rateLimitedTotal: count('rate_limited_total'),
      limits: readLimits(flow),
      groupsWaiting: Number(groups),
      paused: pause.paused,
      pausedKinds: pause.kinds,
      prioritizedDepth: Number(prioritized),
      parkedDepth: Number(parked),
      pendingDepth: Number(pending),
      processingDepth: Number(processing),
      delayedDepth: Number(delayed),
      completedDepth: Number(completed),
      failedDepth: Number(failed),
      oldestPendingAgeMs: Number(oldest) >= 0 ? Math.max(0, Number(nowMs) - Number(oldest)) : null,
      visibilityMs: this.options.visibilityMs,
      nowMs: Number(nowMs),
    };
  }

  #schedules: Schedules<P> | undefined;

  /** The queue's schedules: create, change, list, pause, resume and remove them. */
  get schedules(): Schedules<P> {
    this.#schedules ??= new Schedules(this);
    return this.#schedules;
  }

  /**
   * Pauses the queue, or with `kind` one kind of it: once this resolves, no worker starts a new
   * job of it (claims check inside Redis, so a claim already blocked in Redis, or one racing this
   * call, starts nothing either); running jobs finish; enqueues go on. The pause is kept in Redis
   * until {@link resume}: it holds across worker and Redis restarts (with persistence on).
   */
  async pause(options: { kind?: string } = {}): Promise<void> {
    const kind = this.#flowKind(options);
    await this.#run(SCRIPTS.pause, this.#pauseKeys(), [this.keys.jobPrefix, 'pause', kind, 0]);
  }

  /**
   * Resumes the queue (or one kind): workers blocked on the paused queue wake at once, and a
   * kind's parked jobs go back to the front of their lists, in batches of `batch` (default
   * 1000) per script call (jobs of the kind enqueued meanwhile may start before the last batch).
   */
  async resume(options: { kind?: string; batch?: number } = {}): Promise<void> {
    const kind = this.#flowKind(options);
    const batch = assertWholeNumber('batch', options.batch ?? 1_000, 1, 100_000);
    await resumeInBatches((action) => this.#run(SCRIPTS.pause, this.#pauseKeys(), [this.keys.jobPrefix, action, kind, batch]));
  }

  /**
   * Replaces the queue's rate limits and concurrency caps (see {@link QueueLimits}); `{}` removes
   * them all. Stored in Redis, so every worker obeys them from its next claim; checked first
   * (a limit of 0 or below, a window under 10 ms, an unknown kind: `JOBS_INVALID_ARGUMENT`, and
   * nothing is written). Jobs held back by a limit that is gone go back to their lists.
   */
  async setLimits(limits: QueueLimits): Promise<void> {
    const fields = limitFields(limits, (name) => this.kinds.has(name));
    await applyLimits(
      () => this.#run(SCRIPTS['set-limits'], [this.keys.flow], fields),
      (kind) => this.#run(SCRIPTS.pause, this.#pauseKeys(), [this.keys.jobPrefix, 'unpark', kind, 1_000]),
    );
  }

  /** The queue's limits as stored in Redis, and the kinds a handler's pushback holds back (until when). */
  async limits(): Promise<LimitsState> {
    return readLimits((await this.client.hgetall(this.keys.flow).then((hash) => Object.entries(hash).flat())) as string[]);
  }

  /**
   * A handler's pushback (see {@link RateLimitedError}): no worker claims jobs of `job`'s kind for
   * `retryAfterMs`, and `job` goes back to the front of its list without the attempt counting.
   * Returns until when the kind is held (Redis clock, ms). Throws {@link LostClaimError} when
   * this claim is no longer valid.
   */
  async rateLimited(job: ClaimedJob, retryAfterMs: number, reason = `rate limited for ${retryAfterMs} ms`): Promise<number> {
    assertWholeNumber('retryAfterMs', retryAfterMs, 1, 86_400_000);
    const keys = [this.keys.job(job.id), this.keys.processing, this.keys.pending, this.keys.leases, this.keys.stats, this.keys.flow];
    const until = Number(await this.#run(SCRIPTS['rate-limited'], keys, [this.keys.jobPrefix, job.id, job.token, retryAfterMs, errorText(reason), this.#channel]));
    if (until === 0) throw new LostClaimError(job.id, 'hand back');
    return until;
  }

  #pauseKeys(): string[] {
    return [this.keys.flow, this.keys.resume, this.keys.pending];
  }

  #flowKind(options: { kind?: string }): string {
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'expected an object');
    if (options.kind === undefined) return '';
    if (!this.kinds.has(options.kind)) throw new InvalidArgumentError('kind', `${JSON.stringify(options.kind)} is not a kind of this queue (${this.kinds.names.join(', ')})`);
    return options.kind;
  }

  /**
   * Records the progress of a job this process is running (JSON, at most 16 KiB), fenced by its
   * claim: stored on the job (`progress` in {@link getJob}) and published on the events channel
   * as `{"id":…,"status":"processing","progress":…}`. Throws {@link LostClaimError} when the
   * claim is no longer valid, and writes nothing.
   */
  async progress(job: ClaimedJob, value: unknown): Promise<void> {
    const json = encodeJson(value, 'progress', MAX_PROGRESS_BYTES);
    const stored = await this.#run(SCRIPTS.progress, [this.keys.job(job.id)], [job.id, job.token, json, this.#channel]);
    if (Number(stored) !== 1) throw new LostClaimError(job.id, 'record the progress of');
  }

  /** Stops waits in flight and closes the connections this queue opened (not yours). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#waiter.close();
    if (this.#owned) await closeClient(this.client);
  }
}
