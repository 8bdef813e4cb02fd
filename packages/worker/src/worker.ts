import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import {
  InvalidArgumentError,
  isJobsError,
  JOBS_ERROR_CODES,
  JobsError,
  Queue,
  silentLogger,
  TimeoutError,
  type Logger,
  type QueueStats,
} from '@jobs/core';
import { assertOptionKeys, assertWholeNumber, childLogger, SharedSubscriber, toJobsError, withRedisErrors } from '@jobs/core/internal';
import { registrySink } from './registry-sink.ts';
import { historySink } from './history-sink.ts';
import { systemClock } from './clock.ts';
import { ControlOrders } from './control-orders.ts';
import { DueNotices } from './due-notices.ts';
import { keepSchedules } from './schedule-keeping.ts';
import { checkHandlers } from './handler-check.ts';
import { WorkerScheduler } from './scheduler.ts';
import { WORKER_OPTION_KEYS, type WorkerOptions } from './worker-options.ts';
import { WorkerOrders } from './worker-orders.ts';
import type { WorkerEventMap } from './worker-events.ts';
import { checkMetricsOptions, WorkerMetrics } from './worker-metrics.ts';
import { checkTracingOptions, WorkerTracing } from './worker-tracing.ts';

/** Options of {@link Worker.close}. */
export interface CloseOptions {
  /** How long running jobs may go on finishing. Default 30 s. Past it they are aborted and handed back to pending. */
  graceMs?: number;
}

/**
 * Claims jobs and runs them with a handler per kind, `concurrency` at a time. Make one with
 * {@link createWorker}; it starts at once. Listen to its events (`completed`, `retrying`,
 * `failed`, `cancelled`, `lost`, `error`) and `close()` it on shutdown.
 */
export class Worker<P> extends EventEmitter<WorkerEventMap> {
  /** The queue's name. */
  readonly queue: string;
  /** This worker's id in the queue's event log (see {@link WorkerOptions.workerId}). */
  readonly id: string;
  /** Jobs run at once at most, now (see {@link setConcurrency}). */
  #concurrency: number;
  /** Told to claim nothing (see {@link quiet}). */
  #quiet = false;
  /** The largest batch size of its batch kinds (0 for none): the lowest concurrency it takes. */
  readonly #batchMax: number;
  readonly #group: Queue<P>;
  /** Slots, lanes, the claim loop, outcomes, the reclaim timer and shutdown (see scheduler.ts); made by {@link run}. */
  #scheduler: WorkerScheduler<P> | undefined;
  /** Makes the scheduler: what {@link run} starts. */
  readonly #makeScheduler: () => WorkerScheduler<P>;
  /** Settles when {@link run} starts the scheduler (true) or the worker is closed first (false). */
  readonly #runs: Promise<boolean>;
  #settleRuns: (ran: boolean) => void = () => undefined;
  /** The close of a worker closed before it ran: its connections only. */
  #closedUnrun: Promise<void> | undefined;
  readonly #closeUnrun: () => Promise<void>;
  readonly #log: Logger;
  readonly #readyTimeoutMs: number;
  /** Why the last start-up check failed, for a {@link ready} that runs out of time. */
  #startFailure: unknown;

  constructor(options: WorkerOptions<P>) {
    super();
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'expected { redis, queue, kinds, handlers }');
    assertOptionKeys('options', options, WORKER_OPTION_KEYS);
    const { redis, queue, kinds, handlers, concurrency = 1, partitions = 1, reclaimIntervalMs, idleWaitMs = 1_000, heartbeatIntervalMs = 5_000, unknownKindGraceMs = 900_000, logger = silentLogger, connectionName, metrics, tracing, schedules = true, workerId, readyTimeoutMs = 30_000, autorun = true, ...queueOptions } = options;
    if (typeof autorun !== 'boolean') throw new InvalidArgumentError('autorun', `expected true or false, got ${typeof autorun}`);
    assertWholeNumber('concurrency', concurrency, 1, 10_000);
    this.#readyTimeoutMs = assertWholeNumber('readyTimeoutMs', readyTimeoutMs, 1, 3_600_000);
    assertWholeNumber('idleWaitMs', idleWaitMs, 10, 60_000);
    if (assertWholeNumber('heartbeatIntervalMs', heartbeatIntervalMs, 0, 3_600_000) > 0 && heartbeatIntervalMs < 100) {
      throw new InvalidArgumentError('heartbeatIntervalMs', `expected 0 (off) or 100 to 3600000 ms, got ${heartbeatIntervalMs}`);
    }
    assertWholeNumber('unknownKindGraceMs', unknownKindGraceMs, 0, 604_800_000);
    this.#batchMax = Math.max(0, ...Array.from(checkHandlers(kinds, handlers, concurrency).values(), (limits) => limits.size));
    const tracingOptions = checkTracingOptions(tracing);
    // Checked before the queue opens its connection, so a bad value leaves nothing open.
    const visibility = queueOptions.visibilityMs;
    const interval = reclaimIntervalMs ?? Math.min(5_000, Number.isInteger(visibility) && (visibility as number) > 0 ? (visibility as number) : 30_000);
    assertWholeNumber('reclaimIntervalMs', interval, 0, 86_400_000);
    const metricsOptions = checkMetricsOptions(metrics);
    this.id = workerId ?? `${hostname()}:${process.pid}:${randomBytes(2).toString('hex')}`;
    const log = childLogger(logger, { queue });
    // Opened before the queue: a worker that traces has its claims return each job's traceparent.
    const workerTracing = tracingOptions === undefined ? undefined : WorkerTracing.open(queue, tracingOptions, log);
    const group = new Queue({
      redis,
      queue,
      kinds,
      partitions,
      connectionName: connectionName ?? `jobs:worker:${queue}`,
      workerId: this.id,
      ...queueOptions,
      ...(workerTracing !== undefined && { claimTraceparent: true }),
    });
    this.#group = group;
    let workerMetrics: WorkerMetrics | undefined;
    try {
      workerMetrics = metricsOptions === undefined ? undefined : new WorkerMetrics(metricsOptions, group.name, () => this.running);
    } catch (error) {
      // A registry that holds metrics of these names from elsewhere: nothing stays open.
      void group.close();
      throw error;
    }
    this.queue = group.name;
    this.#concurrency = concurrency;
    // One pub/sub connection for the delayed-job notices and the schedule wakes of every partition.
    const subscriber = new SharedSubscriber(group.client);
    this.#log = log;
    this.#runs = new Promise<boolean>((resolve) => {
      this.#settleRuns = resolve;
    });
    this.#closeUnrun = () => {
      workerMetrics?.close();
      return Promise.all([subscriber.close(), group.close()]).then(() => undefined);
    };
    const orders = new WorkerOrders(this.id, this, (error, message) => this.#scheduler?.reportError(error, message));
    this.#makeScheduler = () => {
      const stopSchedules = schedules ? keepSchedules(group.partitions, subscriber, (error) => this.#scheduler?.reportError(error, 'schedule runner failed')) : async () => undefined;
      return new WorkerScheduler({
        // The schedule runners stop before the connections they share close.
        group: {
          kinds: group.kinds,
          partitions: group.partitions,
          // The start-up check: Redis answers this worker (connected, and its credentials taken), and the layout matches.
          ensureLayout: () => this.#checkStart(group),
          liveWorkers: () => group.workers(),
          close: () => stopSchedules().then(() => Promise.all([subscriber.close(), group.close()])).then(() => undefined),
        },
        handlers,
        concurrency: this.#concurrency,
        unknownKindGraceMs,
        quiet: this.#quiet,
        onWorkerOrder: (order) => orders.heard(order),
        reclaimIntervalMs: interval,
        idleWaitMs,
        log,
        events: this,
        clock: systemClock,
        metrics: workerMetrics,
        tracing: workerTracing,
        heartbeat:
          heartbeatIntervalMs === 0
            ? undefined
            : { sink: registrySink(group, this.id, this.#batchMax, heartbeatIntervalMs, () => ({ concurrency: this.#concurrency, quiet: this.#scheduler?.settledQuiet ?? this.#quiet }), (receipt) => orders.stored(receipt)), intervalMs: heartbeatIntervalMs },
        // At the heartbeat's cadence (5 s when heartbeats are off), nothing per job.
        history: group.options.metricsHistory ? historySink(group, heartbeatIntervalMs === 0 ? 5_000 : heartbeatIntervalMs) : undefined,
        // Hears when a delayed job added meanwhile comes due, so that a waiting worker starts it on time.
        listenForDueJobs: (hasRoom, onError) => new DueNotices(subscriber, group.partitions, hasRoom, onError),
        // Hears a running job's cancel at once (the lease renewal's reply is the backstop).
        listenForOrders: (onOrder, onError) => new ControlOrders(subscriber, group.partitions, onOrder, onError),
      });
    };
    if (autorun) this.run();
  }

  /**
   * Starts a worker created with `autorun: false`: from now on it claims, runs its schedules and
   * heartbeats. Calling it again, or on a worker that started by itself, does nothing. Throws
   * `JOBS_CLOSED` on a worker already closed. A {@link ready} called before it waits for it, for
   * `readyTimeoutMs` at most.
   */
  run(): void {
    if (this.#scheduler !== undefined) return;
    if (this.#closedUnrun !== undefined) throw new JobsError(JOBS_ERROR_CODES.CLOSED, `the worker of queue ${this.queue} was closed before it ran`);
    this.#scheduler = this.#makeScheduler();
    this.#settleRuns(true);
    this.#log.info({ concurrency: this.concurrency }, 'worker started');
  }

  /**
   * Resolves once the worker is up: Redis answered it (connected, its credentials accepted), the
   * queue's partition layout checked, listening for delayed jobs that come due (or given up on
   * that after 2 s without an answer), and about to send its first claim (in the same turn of the
   * event loop), so a job enqueued from then on does not wait for the worker's start-up. Resolves
   * at once if it already was. Rejects with `JOBS_CLOSED` if the worker is closed before. Past
   * `readyTimeoutMs` (default 30 s) it rejects with the error that kept the worker from starting,
   * its code kept (`JOBS_REDIS_AUTH` for a wrong password, `JOBS_REDIS_UNAVAILABLE` while Redis
   * cannot be reached, `JOBS_INVALID_ARGUMENT` for a partition count that differs), or
   * `JOBS_TIMEOUT` when nothing failed but nothing answered; the worker keeps trying, and each
   * failure is also an `error` event.
   *
   * @example
   * ```ts
   * const worker = createWorker({ redis, queue: 'mail', kinds, handlers });
   * await worker.ready();
   * ```
   */
  ready(): Promise<void> {
    const timeoutMs = this.#readyTimeoutMs;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(this.#notReady(timeoutMs)), timeoutMs);
      void this.#runs.then((ran) => (ran ? (this.#scheduler as WorkerScheduler<P>).started : false)).then((started) => {
        clearTimeout(timer);
        if (started) resolve();
        else reject(new JobsError(JOBS_ERROR_CODES.CLOSED, `the worker of queue ${this.queue} was closed before it was ready`));
      });
    });
  }

  /** The start-up check the claim loop retries until it passes: a PING, then the partition layout. */
  async #checkStart(group: Queue<P>): Promise<void> {
    try {
      // A NOPERM answer (an ACL user without PING) also says Redis answered and took the credentials.
      await withRedisErrors(() => group.client.ping()).catch((error: unknown) => {
        if (!isJobsError(error, 'JOBS_REDIS_NOPERM')) throw error;
      });
      await group.ensureLayout();
      this.#startFailure = undefined;
    } catch (error) {
      this.#startFailure = toJobsError(error);
      throw this.#startFailure;
    }
  }

  /** What a {@link ready} that ran out of time rejects with: the last start-up failure, typed, or a timeout. */
  #notReady(timeoutMs: number): Error {
    const failure = this.#startFailure;
    if (isJobsError(failure)) {
      return new JobsError(failure.code, `the worker of queue ${this.queue} is not ready after ${timeoutMs} ms (readyTimeoutMs): ${failure.message}`, { field: failure.field ?? 'readyTimeoutMs' });
    }
    return new TimeoutError(`the start of the worker of queue ${this.queue} (readyTimeoutMs)`, timeoutMs, 'readyTimeoutMs');
  }

  /** Jobs run at once at most, now: the `concurrency` option, or what {@link setConcurrency} (or a scale order) set since. */
  get concurrency(): number {
    return this.#concurrency;
  }

  /** True while the worker claims nothing (see {@link quiet}). */
  get isQuiet(): boolean {
    return this.#quiet;
  }

  /**
   * Stops claiming, for a deploy or a drain: no new claim, nor any with a completion, until
   * {@link resumeClaiming}. The jobs it runs (and those claimed and waiting for a slot) finish,
   * their leases are renewed, heartbeats go on, and the registry (`queue.workers()`, `jobsctl
   * workers`) says `quiet: true` once no claim is in flight. Resolves then: from then on no job
   * comes to this worker. `queue.quietWorkers()` and `jobsctl quiet` do the same from anywhere.
   * Calling it again, or on a closing or closed worker, does nothing more; on a worker not run
   * yet, it starts quiet.
   */
  async quiet(): Promise<void> {
    if (!this.#quiet) this.#log.info({}, 'worker quiet: it claims no new jobs');
    this.#quiet = true;
    await this.#scheduler?.quiet();
  }

  /** Claims again after {@link quiet} (or a quiet order). Does nothing on a worker that is not quiet, closing or closed. */
  resumeClaiming(): void {
    if (this.#quiet) this.#log.info({}, 'worker claims again');
    this.#quiet = false;
    this.#scheduler?.resume();
  }

  /**
   * Changes how many jobs the worker runs at once, while it runs: with more, the new slots claim
   * at once; with fewer, running jobs finish (none is aborted) and it claims again only below the
   * new number. `queue.scaleWorkers()` and `jobsctl scale` do the same from anywhere. A whole
   * number from 1 to 10,000, and no less than its largest batch `size` (a batch takes that many
   * slots); anything else throws `JOBS_INVALID_ARGUMENT` (field `concurrency`), changing nothing.
   * On a closing or closed worker it changes nothing that matters.
   */
  setConcurrency(concurrency: number): void {
    assertWholeNumber('concurrency', concurrency, 1, 10_000);
    if (concurrency < this.#batchMax) {
      throw new InvalidArgumentError('concurrency', `a batch of ${this.#batchMax} takes ${this.#batchMax} of the worker's slots: give it a concurrency of ${this.#batchMax} at least, or lower the batch size`);
    }
    if (concurrency === this.#concurrency) return;
    this.#concurrency = concurrency;
    this.#log.info({ concurrency }, 'worker concurrency changed');
    this.#scheduler?.setConcurrency(concurrency);
  }

  /** How many jobs it holds now: running, or gathered into a batch (see `handlers`). */
  get running(): number {
    return this.#scheduler?.running ?? 0;
  }

  /** The queue's depths and counters. */
  stats(): Promise<QueueStats> {
    return this.#group.stats();
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
      assertOptionKeys<CloseOptions>('options', options, { graceMs: true });
      graceMs = assertWholeNumber('graceMs', options.graceMs ?? 30_000, 0, 86_400_000);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.#scheduler !== undefined) return this.#scheduler.close(graceMs);
    // Never ran: no job to wait for, only its connections to close.
    if (this.#closedUnrun === undefined) {
      this.#closedUnrun = this.#closeUnrun();
      this.#settleRuns(false);
    }
    return this.#closedUnrun;
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
