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
  type Kinds,
  type Logger,
  type QueueOptions,
  type QueueStats,
  type RedisConnectionInput,
} from '@jobs/core';
import { assertOptionKeys, assertWholeNumber, childLogger, QUEUE_OPTION_KEYS, SharedSubscriber, toJobsError, withRedisErrors, type OptionKeys } from '@jobs/core/internal';
import { registrySink } from './registry-sink.ts';
import { historySink } from './history-sink.ts';
import { systemClock } from './clock.ts';
import { ControlOrders } from './control-orders.ts';
import { DueNotices } from './due-notices.ts';
import { keepSchedules } from './schedule-keeping.ts';
import { checkHandlers } from './handler-check.ts';
import type { HandlerMap } from './handler-map.ts';
import { WorkerScheduler } from './scheduler.ts';
import type { WorkerEventMap } from './worker-events.ts';
import { checkMetricsOptions, WorkerMetrics, type WorkerMetricsOptions } from './worker-metrics.ts';
import { checkTracingOptions, WorkerTracing, type WorkerTracingOptions } from './worker-tracing.ts';

/** Options of {@link createWorker}. */
export interface WorkerOptions<P> extends QueueOptions {
  /** Where Redis is: a `redis://` or `rediss://` URL, ioredis options, or an ioredis `Redis`/`Cluster` you own. */
  redis: RedisConnectionInput;
  /** The queue's name. */
  queue: string;
  /** The job kinds, from `defineKinds`. */
  kinds: Kinds<P>;
  /**
   * One handler per kind: `async (payload, ctx) => result`, or, for a kind whose jobs run in
   * batches, `{ handler: async (jobs, batch) => results, batch: { size, minSize?, maxWaitMs } }`
   * (a batch of `size` takes `size` of the worker's `concurrency` slots).
   */
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
  /**
   * The longest an idle worker waits for work before it asks Redis again: a plain queue's claim
   * blocks in Redis this long (in calls of 5 s at most), and each partition of a partitioned one
   * is asked again after at most half of it. A push ends the wait at once, and a delayed job
   * added meanwhile still starts when due (the queue's notices say when). Longer means fewer
   * calls from idle workers; it only delays the jobs of producers that send no notice, such as
   * the recipe's. Whole ms from 10 to 60,000. Default 1,000.
   */
  idleWaitMs?: number;
  /**
   * How often the worker heartbeats into its queue's worker registry (`queue.workers()`,
   * `jobsctl workers`): its id, host, pid, version, kinds, concurrency and the ids of the jobs it
   * runs. It counts as alive for three intervals after each heartbeat (Redis clock), so a worker
   * killed without closing drops out then; a closing one leaves at once. One script call per
   * interval, nothing per job. Whole ms: 0 (off) or 100 to 3,600,000. Default 5,000.
   */
  heartbeatIntervalMs?: number;
  /**
   * How long a job of a kind this worker has no handler for may wait for one that has (a rolling
   * deploy: a new producer's kind reaches the old workers first). Such a job is handed back
   * without spending an attempt, and waits in the delayed set: a second when a live worker of the
   * queue's registry (heartbeats on) handles the kind, else up to 10 s at a time; once this long
   * has passed with no live worker for it, it fails with `JOBS_UNKNOWN_KIND`. The worker warns
   * once per kind. Whole ms from 0 (fail at once) to 604,800,000. Default 900,000 (15 minutes).
   */
  unknownKindGraceMs?: number;
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
  /**
   * How long {@link Worker.ready} waits for the worker to be up before it rejects (the worker
   * itself keeps trying). Whole ms from 1 to 3,600,000. Default 30 s.
   */
  readyTimeoutMs?: number;
  /**
   * Whether the worker starts claiming as soon as it is created. Default true. With false it opens
   * its connection but claims nothing, runs no schedule and sends no heartbeat until
   * {@link Worker.run} is called: for a service that wires its events or waits for its own
   * start-up first.
   */
  autorun?: boolean;
  /**
   * Fire the queue's schedules' ticks (see the producer's `schedules`). Any number of workers and
   * reclaimers may: each tick makes one job. Default true; false leaves it to others.
   */
  schedules?: boolean;
  /**
   * Prometheus metrics of this worker (job run and wait times per kind and outcome, jobs in
   * flight, lease renewals, lost claims, rate-limit waits), made with the prom-client module you
   * pass (`{ promClient }`, `import * as promClient from 'prom-client'`) on your registry
   * (`registry`, default prom-client's global one), so they appear on your service's own
   * `/metrics`. Off (and costing nothing) when not given.
   */
  metrics?: WorkerMetricsOptions;
  /**
   * OpenTelemetry: a span per attempt (attributes: queue, kind, id, attempt; a handler's error
   * recorded on it), linked to the producer's trace when the job carries a `traceparent`, with
   * the handler running in it; and a span per claim call that got jobs (with their count). Its
   * claims then also read each job's `traceparent`. Give the tracer (`{ tracer }`) or a provider
   * (`{ tracerProvider }`; `{ tracerProvider: trace }` with `trace` of @opentelemetry/api for
   * the global one). Off (and costing nothing) when not given or false. Tracing never fails a job.
   */
  tracing?: false | WorkerTracingOptions;
}

/** The keys of {@link WorkerOptions}: any other is refused. */
const WORKER_OPTION_KEYS: OptionKeys<WorkerOptions<unknown>> = {
  ...QUEUE_OPTION_KEYS,
  redis: true,
  queue: true,
  kinds: true,
  handlers: true,
  concurrency: true,
  partitions: true,
  reclaimIntervalMs: true,
  idleWaitMs: true,
  heartbeatIntervalMs: true,
  unknownKindGraceMs: true,
  logger: true,
  connectionName: true,
  workerId: true,
  commandTimeoutMs: true,
  schedules: true,
  metrics: true,
  tracing: true,
  readyTimeoutMs: true,
  autorun: true,
};

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
  /** Jobs run at once. */
  readonly concurrency: number;
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
    checkHandlers(kinds, handlers, concurrency);
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
    this.concurrency = concurrency;
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
        concurrency,
        unknownKindGraceMs,
        reclaimIntervalMs: interval,
        idleWaitMs,
        log,
        events: this,
        clock: systemClock,
        metrics: workerMetrics,
        tracing: workerTracing,
        heartbeat: heartbeatIntervalMs === 0 ? undefined : { sink: registrySink(group, this.id, concurrency, heartbeatIntervalMs), intervalMs: heartbeatIntervalMs },
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
