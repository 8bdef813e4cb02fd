import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import {
  assertWholeNumber,
  InvalidArgumentError,
  isJobsError,
  JOBS_ERROR_CODES,
  JobsError,
  PartitionedQueue,
  type JobQueue,
  LostClaimError,
  PermanentError,
  TimeoutError,
  childLogger,
  silentLogger,
  type ClaimedJob,
  type Kinds,
  type Logger,
  type QueueOptions,
  type QueueStats,
  type RedisConnectionInput,
} from '@jobs/core';
import type { HandlerMap, JobContext } from './handler-map.ts';
import { CompletionBatcher, type CompletionListener } from './completion-batcher.ts';
import { DueNotices } from './due-notices.ts';
import { Execution, type HandlerOutcome } from './execution.ts';
import { HandlerContext } from './job-context.ts';
import { Lane } from './lane.ts';
import { LeaseKeeper } from './lease-keeper.ts';
import type { WorkerEventMap } from './worker-events.ts';

/** Options of {@link createWorker}. */
export interface WorkerOptions<P> extends QueueOptions {
  /** Where Redis is: a `redis://` or `rediss://` URL, ioredis options, or an ioredis `Redis`/`Cluster` you own. */
  redis: RedisConnectionInput;
  /** The queue's name. */
  queue: string;
  /** The job kinds, from `defineKinds`. */
  kinds: Kinds<P>;
  /** One handler per kind. */
  handlers: HandlerMap<P>;
  /** Jobs run at once by this worker. Default 1. */
  concurrency?: number;
  /**
   * The queue's partition count, when it is partitioned (see the producer's `partitions`): the
   * worker serves every partition, the partitions with work taking turns of 250 ms (an empty one
   * passes its turn at once). Default 1 (a plain queue).
   */
  partitions?: number;
  /** Sweep for expired leases (crashed workers) this often; 0 turns it off. Default: the visibility timeout, at most 5 s. */
  reclaimIntervalMs?: number;
  /** Structured logs (pino or the like). Default: silent. */
  logger?: Logger;
  /** Client name shown by `CLIENT LIST`. Default `jobs:worker:<queue>`. */
  connectionName?: string;
  /**
   * This worker's id in the queue's event log (the `eventLog` queue option): the `worker` of
   * its claims, completions, failures and releases. Default `<hostname>:<pid>:<4 random hex>`.
   */
  workerId?: string;
  /** A command without an answer for this long fails (and is retried by the worker). Default 10 s. */
  commandTimeoutMs?: number;
}

/** Options of {@link Worker.close}. */
export interface CloseOptions {
  /** How long running jobs may go on finishing. Default 30 s. Past it they are aborted and handed back to pending. */
  graceMs?: number;
}

const MAX_CLAIM_BATCH = 100;

/**
 * With partitions: how long one lane's turn lasts while others have work. Each change of turn
 * costs a little (the next partition's Redis starts cold); measured with `bench:cluster` on this
 * 2-core machine, partitioned/plain processing was 0.82x with turns of 50 ms, 0.88x with 250 ms
 * and 0.93x with 1000 ms. 250 ms keeps the wait of a partition behind busy others short (at most
 * 250 ms for each other partition with work).
 */
const LANE_TURN_MS = 250;
/** The longest the fetch loop waits for the delayed-job notices to be subscribed before its first claim. */
const NOTICES_FIRST_MAX_MS = 2_000;
/** At low load, the longest the fetch loop waits for completions in flight before it claims (see #completionsFirst). */
const COMPLETIONS_FIRST_MAX_MS = 10;

/** Waits `ms`, or less if `signal` aborts or `until` settles first. */
function pause(ms: number, signal: AbortSignal, until?: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    void until?.then(done, done);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Claims jobs and runs them with a handler per kind, `concurrency` at a time. Make one with
 * {@link createWorker}; it starts at once. Listen to its events (`completed`, `retrying`,
 * `failed`, `lost`, `error`) and `close()` it on shutdown.
 */
export class Worker<P> extends EventEmitter<WorkerEventMap> {
  /** The queue's name. */
  readonly queue: string;
  /** This worker's id in the queue's event log (see {@link WorkerOptions.workerId}). */
  readonly id: string;
  /** Jobs run at once. */
  readonly concurrency: number;
  readonly #group: PartitionedQueue<P>;
  /** One per partition (one for a plain queue). */
  readonly #lanes: readonly Lane[];
  /** With partitions: the lane whose turn it is to be claimed from, and since when. */
  #focus = 0;
  #focusSince = 0;
  readonly #handlers: HandlerMap<P>;
  readonly #log: Logger;
  readonly #reclaimIntervalMs: number;
  /** Running jobs by claim token (the same job claimed again is another execution). */
  readonly #active = new Map<string, Execution>();
  /** Jobs claimed along with a batch of completions, waiting for those to let go of their slots. */
  readonly #ready: { job: ClaimedJob; lane: Lane }[] = [];
  /** Slots promised to claims in flight. */
  #reserved = 0;
  /**
   * A plain queue's last claim came back with fewer jobs than it asked for. Completion batches
   * then claim nothing: the fetch loop claims the slots they free (it blocks until work is
   * pushed), and at low load a batch's claim would find pending empty every time, a third of a
   * lone completion's script. The next full claim (the fetch loop's) turns batch claims back on.
   */
  #pendingLookedEmpty = false;
  /** Failed claims in a row made for another lane's completion batch (see #openLane). */
  readonly #claimAheadFailures = { count: 0 };
  readonly #stop = new AbortController();
  /** Claims made for another lane's completion batch, still in flight (shutdown waits for them). */
  readonly #claimsAhead = new Set<Promise<void>>();
  /**
   * Closing and the grace period is over: no job starts any more. Claims still in flight when it
   * ended (a completion batch's, the fetch loop's) land in {@link #ready} and are handed back.
   */
  #handingBack = false;
  #slotWaiters: (() => void)[] = [];
  /** Hears when a delayed job added meanwhile comes due, so that a waiting worker starts it on time. */
  readonly #dueNotices: DueNotices;
  #fetching: Promise<void>;
  /** Settles when the fetch loop is about to claim for the first time (true), or the worker closed before (false). */
  readonly #started: Promise<boolean>;
  #markStarted: (started: boolean) => void = () => undefined;
  #sweeping: Promise<void> | undefined;
  #sweepTimer: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: WorkerOptions<P>) {
    super();
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'expected { redis, queue, kinds, handlers }');
    const { redis, queue, kinds, handlers, concurrency = 1, partitions = 1, reclaimIntervalMs, logger = silentLogger, connectionName, workerId, ...queueOptions } = options;
    assertWholeNumber('concurrency', concurrency, 1, 10_000);
    if (typeof handlers !== 'object' || handlers === null) throw new InvalidArgumentError('handlers', 'expected an object with one handler per kind');
    for (const kind of kinds.names) {
      if (typeof (handlers as Record<string, unknown>)[kind] !== 'function') throw new InvalidArgumentError(`handlers.${kind}`, `no handler for kind "${kind}"`);
    }
    for (const key of Object.keys(handlers)) {
      if (!kinds.has(key)) throw new InvalidArgumentError(`handlers.${key}`, `"${key}" is not a kind of this queue (${kinds.names.join(', ')})`);
    }
    // Checked before the queue opens its connection, so a bad value leaves nothing open.
    const visibility = queueOptions.visibilityMs;
    const interval = reclaimIntervalMs ?? Math.min(5_000, Number.isInteger(visibility) && (visibility as number) > 0 ? (visibility as number) : 30_000);
    assertWholeNumber('reclaimIntervalMs', interval, 0, 86_400_000);
    this.id = workerId ?? `${hostname()}:${process.pid}:${randomBytes(2).toString('hex')}`;
    this.#group = new PartitionedQueue({ redis, queue, kinds, partitions, connectionName: connectionName ?? `jobs:worker:${queue}`, workerId: this.id, ...queueOptions });
    this.queue = this.#group.name;
    this.concurrency = concurrency;
    this.#handlers = handlers;
    this.#log = childLogger(logger, { queue });
    this.#reclaimIntervalMs = interval;
    this.#lanes = this.#group.partitions.map((partition) => this.#openLane(partition as JobQueue<unknown>));
    // Room: a free slot, counting those a waiting claim has reserved (the promotion wakes that claim).
    this.#dueNotices = new DueNotices(this.#group.client, this.#lanes, () => this.#free() + this.#reserved > 0, (error, message) => this.#reportError(error, message));
    this.#started = new Promise((resolve) => {
      this.#markStarted = resolve;
    });
    this.#fetching = this.#fetchLoop();
    if (interval > 0) this.#scheduleSweep();
    this.#log.info({ concurrency }, 'worker started');
  }

  #openLane(queue: JobQueue<unknown>): Lane {
    const leases = new LeaseKeeper(queue, (error) => this.#reportError(error, 'lease renewal failed'));
    const completions = new CompletionBatcher<Execution>(
      queue,
      {
        reserve: (completing: number): number => {
          if (this.#stop.signal.aborted || this.#pendingLookedEmpty) return 0;
          // With partitions, claims ride on the completions of the lane whose turn it is only.
          // Another lane's batch claims nothing, and its slots are claimed from the lane whose
          // turn it is at once, alongside the batch (they start as the batch frees them), so a
          // change of turn costs no round trip.
          if (this.#lanes.length > 1) {
            const focus = this.#focusLane();
            if (focus !== lane) {
              if (focus) this.#claimAhead(focus, Math.min(completing, MAX_CLAIM_BATCH));
              return 0;
            }
          }
          const extra = Math.max(0, this.#free());
          this.#reserved += extra;
          return completing + extra;
        },
        claimed: (jobs, reserved, completing) => {
          this.#release(Math.max(0, reserved - completing));
          if (reserved > 0) {
            lane.claimed(jobs.length);
            this.#noteClaim(jobs.length, reserved);
          }
          for (const job of jobs) this.#ready.push({ job, lane });
          this.#startReady();
        },
        // The jobs are completed on the primary; a failover before the replicas catch up would
        // run them again (at-least-once holds). Said, not thrown.
        notReplicated: (error) => this.#reportError(error, 'completions not yet on the replicas'),
      },
      this.#completions,
      Math.ceil(this.concurrency / 2),
    );
    const lane: Lane = new Lane(queue, leases, completions);
    return lane;
  }

  /**
   * Resolves once the worker is up: connected, the queue's partition layout checked, listening
   * for delayed jobs that come due (or given up on that after 2 s without an answer), and about
   * to send its first claim (in the same turn of the event loop), so a job enqueued from then on
   * does not wait for the worker's start-up. Resolves at once if it already was. Rejects with
   * `JOBS_CLOSED` if the worker is closed before. While Redis cannot be reached, or the queue's
   * partition count differs from the worker's, it stays pending (the worker keeps trying, and
   * reports each failure as an `error` event): race it with a timeout where a deadline matters.
   *
   * @example
   * ```ts
   * const worker = createWorker({ redis, queue: 'mail', kinds, handlers });
   * await worker.ready();
   * ```
   */
  ready(): Promise<void> {
    return this.#started.then((started) => {
      if (!started) throw new JobsError(JOBS_ERROR_CODES.CLOSED, `the worker of queue ${this.queue} was closed before it was ready`);
    });
  }

  /** How many jobs are running now. */
  get running(): number {
    return this.#active.size;
  }

  /** The queue's depths and counters. */
  stats(): Promise<QueueStats> {
    return this.#group.stats();
  }

  #reportError(error: unknown, message: string): void {
    this.#log.error({ err: error instanceof Error ? { name: error.name, message: error.message, code: (error as JobsError).code } : String(error) }, message);
    // An 'error' event with no listener would throw: emit it only to those who listen.
    if (this.listenerCount('error') > 0) this.emit('error', error);
  }

  /** Slots neither running a job, nor holding a claimed one, nor promised to a claim in flight. */
  #free(): number {
    return this.concurrency - this.#active.size - this.#ready.length - this.#reserved;
  }

  /** A claim on `lane` alongside another lane's completion batch; shutdown waits for it. */
  #claimAhead(lane: Lane, wanted: number): void {
    const claim = this.#claimOnce(lane, wanted, 0, this.#claimAheadFailures).finally(() => this.#claimsAhead.delete(claim));
    this.#claimsAhead.add(claim);
  }

  /** Starts claimed jobs while there are slots for them (none once closing has begun handing jobs back). */
  #startReady(): void {
    while (!this.#handingBack && this.#ready.length > 0 && this.#active.size < this.concurrency) {
      const { job, lane } = this.#ready.shift() as { job: ClaimedJob; lane: Lane };
      this.#start(job, lane);
    }
  }

  #slotFreed(): Promise<void> {
    return new Promise((resolve) => this.#slotWaiters.push(resolve));
  }

  #wakeSlotWaiters(): void {
    const waiters = this.#slotWaiters;
    this.#slotWaiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Claims while there are free slots. A plain queue blocks in Redis until work comes. A
   * partitioned one claims from the lane whose turn it is (see {@link #focusLane}): the lanes
   * with work take turns of {@link LANE_TURN_MS}, an empty one passing its turn at once, so each
   * partition with work gets an equal share of the worker over time while every claim and
   * completion batch stays as large as on a plain queue; when every lane looks empty it blocks
   * on all of them at once.
   */
  async #fetchLoop(): Promise<void> {
    const failures = { count: 0 };
    // A partition count that differs from the one Redis recorded would leave partitions unserved.
    while (!this.#stop.signal.aborted) {
      try {
        await this.#group.ensureLayout();
        break;
      } catch (error) {
        failures.count += 1;
        this.#reportError(error, 'the partition layout does not match');
        await pause(Math.min(5_000, 50 * 2 ** failures.count), this.#stop.signal);
      }
    }
    failures.count = 0;
    // Listening before the first wait, so a delayed job added during it is heard of (but not
    // for long: with Redis away, the claims report it).
    await pause(NOTICES_FIRST_MAX_MS, this.#stop.signal, this.#dueNotices.ready);
    this.#markStarted(!this.#stop.signal.aborted);
    const single = this.#lanes.length === 1;
    while (!this.#stop.signal.aborted) {
      const free = this.#free();
      if (free <= 0) {
        await this.#slotFreed();
        continue;
      }
      const lane = single ? (this.#lanes[0] as Lane) : this.#focusLane();
      if (!lane) {
        await this.#waitForAnyLane();
        continue;
      }
      if (single && this.#pendingLookedEmpty) {
        await this.#completionsFirst(lane);
        if (this.#stop.signal.aborted) break;
      }
      const wanted = this.#free();
      if (wanted <= 0) continue;
      await this.#claimOnce(lane, Math.min(wanted, MAX_CLAIM_BATCH), single ? 1_000 : 0, failures);
    }
  }

  /**
   * At low load (a plain queue's last claim came back short), the blocking claim that waits for
   * the next job is sent only once the completions in flight have answered. Sent at once, its
   * two writes (about 25 us each here) came between a lone completion and its reply, which the
   * worker then read late: a job's start-to-done went from about 0.33 to 0.27 ms at 1000 jobs/s.
   * A job pushed meanwhile waits for that round trip, and never longer than
   * {@link COMPLETIONS_FIRST_MAX_MS}: completions that never pause (a busy worker whose claims
   * still come back short) must not keep it from claiming.
   */
  async #completionsFirst(lane: Lane): Promise<void> {
    // A turn of the event loop first: the completions of the jobs just started are sent by then.
    await new Promise((resolve) => setImmediate(resolve));
    if (lane.completions.busy) await pause(COMPLETIONS_FIRST_MAX_MS, this.#stop.signal, lane.completions.idle());
  }

  /** One claim on `lane` for up to `wanted` jobs (waiting up to `blockMs` for work); its jobs start as slots allow. */
  async #claimOnce(lane: Lane, wanted: number, blockMs: number, failures: { count: number }): Promise<void> {
    this.#reserved += wanted;
    let jobs: ClaimedJob[];
    try {
      jobs = await lane.queue.claim({ max: wanted, blockMs, signal: this.#stop.signal });
    } catch (error) {
      // The slots go back before the back-off: they are not this claim's while it waits.
      this.#release(wanted);
      if (this.#stop.signal.aborted) return;
      failures.count += 1;
      this.#reportError(error, 'claim failed');
      await pause(Math.min(5_000, 50 * 2 ** failures.count), this.#stop.signal);
      return;
    }
    this.#release(wanted);
    lane.claimed(jobs.length);
    this.#noteClaim(jobs.length, wanted);
    failures.count = 0;
    // Jobs claimed while stopping still run (or are handed back): a claimed job is never dropped.
    for (const job of jobs) this.#ready.push({ job, lane });
    this.#startReady();
  }

  /** A claim asked for `wanted` jobs and got `got`: see {@link #pendingLookedEmpty} (plain queues only). */
  #noteClaim(got: number, wanted: number): void {
    if (this.#lanes.length === 1) this.#pendingLookedEmpty = got < wanted;
  }

  /**
   * Slots promised to a claim are free again. The fetch loop may be waiting for a slot (it saw
   * none free while the claim was in flight), and a claim made for another lane's completion
   * batch can answer after every running job has finished: wake it, or nothing else would.
   */
  #release(slots: number): void {
    if (slots <= 0) return;
    this.#reserved -= slots;
    this.#wakeSlotWaiters();
  }

  /**
   * The lane whose turn it is: the current one until its turn is over or it looks empty, then
   * the next that may have work, round robin (the current one again only when no other has).
   */
  #focusLane(now = Date.now()): Lane | undefined {
    const count = this.#lanes.length;
    const current = this.#lanes[this.#focus] as Lane;
    if (current.mayHaveWork(now) && now - this.#focusSince < LANE_TURN_MS) return current;
    for (let step = 1; step <= count; step += 1) {
      const index = (this.#focus + step) % count;
      const lane = this.#lanes[index] as Lane;
      if (lane.mayHaveWork(now)) {
        this.#focus = index;
        this.#focusSince = now;
        return lane;
      }
    }
    return undefined;
  }

  /**
   * Every lane looked empty: block on all of them at once (one blocking connection each) until
   * a push wakes one, or the first lane's quiet spell ends (delayed jobs come due that way), or
   * the worker stops. Only this wait listens for the stop: the lanes' waits end by their timeout,
   * a push or the queue's close, and those that lose the race go on and wake their lane when they
   * end. Each listening for the stop as well held a listener on the stop signal until it ended,
   * and a partition that keeps waking the worker piled them up past Node's warning.
   */
  async #waitForAnyLane(): Promise<void> {
    const timeoutMs = Math.max(1, Math.min(...this.#lanes.map((lane) => lane.quietUntil)) - Date.now());
    const anyLane = Promise.race(
      this.#lanes.map((lane) =>
        lane.queue.waitForWork(timeoutMs).then(
          () => lane.wake(),
          // Redis away: the lane's next claim reports it; meanwhile do not spin.
          () => pause(Math.min(timeoutMs, 1_000), this.#stop.signal).then(() => lane.wake()),
        ),
      ),
    );
    // The lanes' waits end a few ms after timeoutMs by themselves (and wake their lanes): this
    // bound only backs that up.
    await pause(timeoutMs + 50, this.#stop.signal, anyLane);
  }

  #start(job: ClaimedJob, lane: Lane): void {
    const execution = new Execution(job, lane, this.#onOutcome);
    this.#active.set(job.token, execution);
    try {
      this.#execute(execution);
    } catch (error) {
      this.#reportError(error, 'job bookkeeping failed');
      this.#finish(execution);
    }
  }

  /** Checks the job's payload and calls its handler; {@link #onOutcome} hears how it ended. */
  #execute(execution: Execution): void {
    const { job, lane } = execution;
    const queue = lane.queue;
    // The claim parsed the payload once; only a payload that is not JSON is parsed again, for the reason.
    const kinds = this.#group.kinds;
    const decoded = job.payload === undefined ? kinds.decode(job.rawPayload, job.fields.kind) : kinds.decodeParsed(job.payload, job.fields.kind);
    if (!decoded.ok) {
      // Unknown kind, payload not JSON, or not valid for its schema (a non-validating client
      // wrote it): retrying cannot help.
      this.#report(execution, { ok: false, error: new PermanentError(decoded.reason) }, 0);
      return;
    }
    const kind = decoded.kind;
    const kindOptions = kinds.options(kind);
    execution.leaseMs = job.leaseExpiresAtMs - job.claimedAtMs > 0 ? job.leaseExpiresAtMs - job.claimedAtMs : queue.options.visibilityMs;
    lane.leases.add(job, execution.leaseMs, execution.onLeaseLost);
    const context = new HandlerContext(execution, kind, job.maxAttempts ?? kindOptions.maxAttempts ?? queue.options.maxAttempts, this.#log);
    if (kindOptions.timeoutMs !== undefined) {
      const timeoutMs = kindOptions.timeoutMs;
      execution.timer = setTimeout(() => execution.abort(new TimeoutError(`job ${job.id} (${kind})`, timeoutMs)), timeoutMs);
    }
    execution.startedAt = Date.now();
    type AnyHandler = (payload: unknown, context: JobContext) => unknown;
    const handler = (this.#handlers as unknown as Record<string, AnyHandler>)[kind] as AnyHandler;
    execution.run(handler, decoded.payload, context);
  }

  /** A handler ended (or its attempt was aborted): stop its timer and lease, then report. */
  readonly #onOutcome = (execution: Execution, outcome: HandlerOutcome): void => {
    clearTimeout(execution.timer);
    // A timed-out attempt stops renewing before it is reported.
    execution.lane.leases.remove(execution.job);
    this.#report(execution, outcome, Date.now() - execution.startedAt);
  };

  /**
   * Records the outcome in Redis and then frees the job's slot: a result goes to the lane's
   * completion batch ({@link #completions} hears back), an error to a retry or the dead letters.
   */
  #report(execution: Execution, outcome: HandlerOutcome, durationMs: number): void {
    if (execution.released) {
      this.#finish(execution);
      return;
    }
    if (execution.lost) {
      this.#lost(execution.job, 'the lease expired and the job was reclaimed');
      this.#finish(execution);
      return;
    }
    if (!outcome.ok) {
      void this.#fail(execution, outcome.error);
      return;
    }
    execution.result = outcome.result;
    execution.durationMs = durationMs;
    execution.lane.completions.complete(execution);
  }

  /** How each completion of a batch went. */
  readonly #completions: CompletionListener<Execution> = {
    completed: (execution, completion) => {
      const { job } = execution;
      if (completion.status === 'completed') {
        try {
          if (this.listenerCount('completed') > 0) this.emit('completed', { job, result: execution.result, durationMs: execution.durationMs });
        } catch (error) {
          this.#reportError(error, 'a completed listener threw');
        }
        this.#finish(execution);
      } else if (execution.released) {
        this.#finish(execution);
      } else if (completion.status === 'lost') {
        this.#lost(job, new LostClaimError(job.id, 'complete').message);
        this.#finish(execution);
      } else {
        // A result that cannot be stored would fail the same way on every attempt.
        void this.#fail(execution, new PermanentError(`the handler's result cannot be stored: ${completion.error.message}`, { cause: completion.error }));
      }
    },
    failed: (execution, error) => {
      if (execution.released) {
        // Handed back at shutdown: the outcome is no longer ours to report.
      } else if (isJobsError(error, 'JOBS_LOST_CLAIM')) {
        this.#lost(execution.job, error.message);
      } else {
        this.#reportError(error, 'job bookkeeping failed');
      }
      this.#finish(execution);
    },
  };

  /** Records a failed attempt: retried (now or after its backoff) or dead-lettered. */
  async #fail(execution: Execution, error: unknown): Promise<void> {
    const { job, lane } = execution;
    try {
      const permanent = isJobsError(error, JOBS_ERROR_CODES.PERMANENT);
      const result = await lane.queue.fail(job, error, { permanent });
      if (result === 'failed') this.emit('failed', { job, error });
      else this.emit('retrying', { job, error, outcome: result });
    } catch (failure) {
      if (execution.released) return;
      if (isJobsError(failure, 'JOBS_LOST_CLAIM')) this.#lost(job, failure.message);
      else this.#reportError(failure, 'job bookkeeping failed');
    } finally {
      this.#finish(execution);
    }
  }

  /** The job's slot is free again: start what is ready, wake the fetch loop. */
  #finish(execution: Execution): void {
    clearTimeout(execution.timer);
    execution.lane.leases.remove(execution.job);
    this.#active.delete(execution.job.token);
    execution.finish();
    this.#startReady();
    this.#wakeSlotWaiters();
  }

  #lost(job: ClaimedJob, reason: string): void {
    this.#log.warn({ jobId: job.id, reason }, 'lost the claim on a job; its outcome was not reported');
    this.emit('lost', { job, reason });
  }

  #scheduleSweep(): void {
    if (this.#stop.signal.aborted) return;
    // Jitter, so that many workers do not all sweep in the same millisecond.
    const delay = Math.round(this.#reclaimIntervalMs * (0.75 + Math.random() * 0.5));
    this.#sweepTimer = setTimeout(() => {
      this.#sweeping = this.#sweep().finally(() => {
        this.#sweeping = undefined;
        this.#scheduleSweep();
      });
    }, delay);
  }

  /** One opportunistic reclaim sweep of every lane (a few bounded calls each at most). */
  async #sweep(): Promise<void> {
    for (const lane of this.#lanes) {
      try {
        for (let call = 0; call < 10 && !this.#stop.signal.aborted; call += 1) {
          const result = await lane.queue.reclaimStuck();
          if (result.reclaimed.length + result.deadLettered.length > 0) {
            this.#log.info({ partition: lane.queue.name, reclaimed: result.reclaimed.length, deadLettered: result.deadLettered.length }, 'reclaimed jobs with expired leases');
          }
          if (!result.more) break;
        }
      } catch (error) {
        if (!this.#stop.signal.aborted) this.#reportError(error, 'reclaim sweep failed');
      }
    }
  }

  /**
   * Stops claiming, lets running jobs finish for up to `graceMs`, then aborts the rest (their
   * `signal` fires) and hands them back to pending at once, so another worker can start them
   * without waiting for a lease to expire. Jobs claimed but not started by then (a claim or a
   * completion batch still in flight brings some) go back too: none starts once the grace period
   * is over. Closes the connections it opened; resolves when done. Calling it again returns the
   * same promise.
   */
  close(options: CloseOptions = {}): Promise<void> {
    let graceMs: number;
    try {
      graceMs = assertWholeNumber('graceMs', options.graceMs ?? 30_000, 0, 86_400_000);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#closing ??= this.#shutdown(graceMs);
    return this.#closing;
  }

  async #shutdown(graceMs: number): Promise<void> {
    this.#log.info({ running: this.#active.size, graceMs }, 'worker closing');
    this.#stop.abort();
    this.#markStarted(false);
    clearTimeout(this.#sweepTimer);
    this.#wakeSlotWaiters();
    // One grace period for both: a claim in flight (it ends at once unless Redis is away) and
    // the jobs running.
    const graceOver = new AbortController();
    const grace = pause(graceMs, graceOver.signal);
    let graceEnded = false;
    void grace.then(() => {
      graceEnded = true;
    });
    await Promise.race([this.#fetching, grace]);
    // Until nothing runs or the grace period is over: a batch of completions in flight may still
    // bring jobs it claimed, and those run too.
    while (!graceEnded && this.#active.size > 0) {
      await Promise.race([Promise.allSettled([...this.#active.values()].map((execution) => execution.done)), grace]);
    }
    graceOver.abort();
    this.#handingBack = true;
    const unfinished = [...this.#active.values()];
    for (const execution of unfinished) execution.released = true;
    await this.#handBack([...unfinished, ...this.#ready.splice(0)]);
    for (const execution of unfinished) execution.abort(new JobsError(JOBS_ERROR_CODES.CLOSED, 'the worker is shutting down'));
    // A completion batch in flight when the grace period ended settles with its executions, and
    // may bring jobs it claimed; so may a claim of the fetch loop's or one made alongside another
    // lane's batch. None of them starts now: they are handed back too.
    await Promise.allSettled(unfinished.map((execution) => execution.done));
    await Promise.allSettled([this.#fetching, ...this.#claimsAhead]);
    await this.#handBack(this.#ready.splice(0));
    await Promise.all(this.#lanes.map((lane) => lane.leases.stop()));
    await this.#sweeping;
    await this.#dueNotices.close();
    await this.#group.close();
    this.#log.info({}, 'worker closed');
    this.emit('closed');
  }

  /** Hands `jobs` (running ones whose grace period is over, claimed ones not started) back to pending, one call per lane. */
  async #handBack(jobs: readonly { job: ClaimedJob; lane: Lane }[]): Promise<void> {
    const byLane = new Map<Lane, ClaimedJob[]>();
    for (const { job, lane } of jobs) {
      const laneJobs = byLane.get(lane);
      if (laneJobs) laneJobs.push(job);
      else byLane.set(lane, [job]);
    }
    for (const [lane, laneJobs] of byLane) {
      try {
        const released = await lane.queue.release(laneJobs);
        this.#log.info({ partition: lane.queue.name, released: released.filter(Boolean).length }, 'handed unfinished jobs back to pending');
      } catch (error) {
        // They come back anyway once their leases expire, which no one renews now.
        this.#reportError(error, 'could not hand unfinished jobs back; they return when their leases expire');
      }
    }
  }
}

/**
 * Creates a worker for one queue and starts it.
 *
 * @example
 * ```ts
 * const worker = createWorker({
 *   redis: process.env.REDIS_URL,
 *   queue: 'mail',
 *   kinds,
 *   concurrency: 16,
 *   handlers: {
 *     email: async ({ recipient }, { signal }) => ({ messageId: await send(recipient, { signal }) }),
 *   },
 * });
 * closeOnSignals(worker, { graceMs: 10_000 });
 * ```
 */
export function createWorker<P>(options: WorkerOptions<P>): Worker<P> {
  return new Worker(options);
}
