import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import {
  assertQueueName,
  defineKinds,
  isJobsError,
  Queue,
  RedisScheduleStore,
  ScheduleRunner,
  silentLogger,
  type Logger,
  type QueueOptions,
  type RedisClient,
  type RedisConnectionInput,
} from '@jobs/core';
import { assertOptionKeys, assertWholeNumber, closeClient, connectRedis, partitionNames, recordedPartitions, SharedSubscriber, toJobsError } from '@jobs/core/internal';
import { discoverQueues } from './discover-queues.ts';
import { ReclaimerMetrics } from './metrics.ts';
import { registryHolderOf } from '@jobs/core/internal';
import { sweepQueue, type SweepReport } from './sweep.ts';

/** Options of {@link createReclaimer}. */
export interface ReclaimerOptions {
  /** Where Redis is: a URL, ioredis options, or an ioredis `Redis`/`Cluster` you own. */
  redis: RedisConnectionInput;
  /** The queues to sweep. Default: every queue found in Redis, looked up again now and then. */
  queues?: readonly string[];
  /** Time between sweeps. Default 1000 ms. */
  intervalMs?: number;
  /** Most jobs one script call handles. Default 500. */
  batch?: number;
  /** Most calls of each kind per queue per sweep. Default 100. */
  maxCallsPerSweep?: number;
  /** Lease given to claims made by recipe clients, which carry none. Default 30 s. */
  visibilityMs?: number;
  /** Attempts allowed to jobs whose hash does not say. Default 3. */
  maxAttempts?: number;
  /**
   * Log the reclaims (and the dead letters of expired leases) to the queues' event log: set it
   * as the producers and workers of the queues do (their `eventLog` option). Default off.
   */
  eventLog?: QueueOptions['eventLog'];
  /** The reclaimer's id in the event log. Default `reclaimer:<hostname>:<pid>`. */
  workerId?: string;
  /** How often to look for new queues when `queues` is not given. Default 60 s. */
  discoverIntervalMs?: number;
  /**
   * After this many sweeps in a row fail (on any of their queues), {@link Reclaimer.healthy}
   * reports unhealthy even while Redis answers PING: a permission taken away, a script Redis
   * refuses. Default 3.
   */
  unhealthyAfterFailedSweeps?: number;
  /** Structured logs (pino or the like; errors go under `err`). Default: silent. */
  logger?: Logger;
  /** Where to record metrics. Default: a registry of its own (`reclaimer.metrics.registry`). */
  metrics?: ReclaimerMetrics;
  /**
   * Once started, fire the ticks of the schedules of the queues it sweeps. Any number of
   * reclaimers and workers may: each tick makes one job. Default true.
   */
  schedules?: boolean;
}

/** The events a reclaimer emits. */
export interface ReclaimerEventMap {
  /** A queue was swept. */
  sweep: [report: SweepReport];
  /** A sweep failed (Redis unreachable...). The reclaimer keeps going. */
  error: [error: unknown];
}

const empty = defineKinds({});

/**
 * Sweeps one or many queues on an interval: returns expired leases (crashed workers) to
 * pending, dead-letters jobs on their last attempt, promotes due delayed jobs, and drops
 * expired ids from the histories. Any number of replicas can run at once: every step is an
 * atomic, bounded script call, so no job is handled twice.
 */
export class Reclaimer extends EventEmitter<ReclaimerEventMap> {
  /** Its Prometheus metrics. */
  readonly metrics: ReclaimerMetrics;
  readonly intervalMs: number;
  readonly #client: RedisClient;
  readonly #owned: boolean;
  readonly #fixedQueues: readonly string[] | undefined;
  readonly #queues = new Map<string, Queue<unknown>>();
  /** Per queue, its schedule runner (started with the reclaimer). */
  readonly #runners = new Map<string, ScheduleRunner>();
  /** The one pub/sub connection of every runner's wakes, opened with the first runner. */
  #subscriber: SharedSubscriber | undefined;
  readonly #schedules: boolean;
  #started = false;
  readonly #limits: { batch: number; maxCalls: number };
  readonly #visibilityMs: number;
  readonly #maxAttempts: number;
  readonly #discoverIntervalMs: number;
  readonly #eventLog: NonNullable<QueueOptions['eventLog']>;
  readonly #workerId: string;
  readonly #log: Logger;
  /** Per queue, the failedDroppedTotal the last sweep saw. */
  readonly #failedDropped = new Map<string, number>();
  readonly #unhealthyAfter: number;
  /** Sweeps in a row that failed, and the last failure. */
  #failedSweeps = 0;
  #lastFailure: unknown;
  #discoveredAt = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<SweepReport[]> | undefined;
  #stopped = false;

  constructor(options: ReclaimerOptions) {
    super();
    assertOptionKeys<ReclaimerOptions>('options', options, {
      redis: true,
      queues: true,
      intervalMs: true,
      batch: true,
      maxCallsPerSweep: true,
      visibilityMs: true,
      maxAttempts: true,
      eventLog: true,
      workerId: true,
      discoverIntervalMs: true,
      unhealthyAfterFailedSweeps: true,
      logger: true,
      metrics: true,
      schedules: true,
    });
    this.intervalMs = assertWholeNumber('intervalMs', options.intervalMs ?? 1_000, 10, 3_600_000);
    this.#limits = { batch: assertWholeNumber('batch', options.batch ?? 500, 1, 100_000), maxCalls: assertWholeNumber('maxCallsPerSweep', options.maxCallsPerSweep ?? 100, 1, 100_000) };
    this.#visibilityMs = assertWholeNumber('visibilityMs', options.visibilityMs ?? 30_000, 1, 12 * 3_600_000);
    this.#maxAttempts = assertWholeNumber('maxAttempts', options.maxAttempts ?? 3, 1, 1_000);
    this.#eventLog = options.eventLog ?? false;
    this.#workerId = options.workerId ?? `reclaimer:${hostname()}:${process.pid}`;
    this.#discoverIntervalMs = assertWholeNumber('discoverIntervalMs', options.discoverIntervalMs ?? 60_000, 0, 86_400_000);
    this.#unhealthyAfter = assertWholeNumber('unhealthyAfterFailedSweeps', options.unhealthyAfterFailedSweeps ?? 3, 1, 1_000);
    this.#fixedQueues = options.queues && options.queues.length > 0 ? [...options.queues] : undefined;
    // Every name is checked before a connection is opened, so a bad one leaves nothing open.
    for (const name of this.#fixedQueues ?? []) assertQueueName(name);
    this.#log = options.logger ?? silentLogger;
    this.#schedules = options.schedules ?? true;
    this.metrics = options.metrics ?? new ReclaimerMetrics();
    // Commands fail fast while Redis is away (the next sweep tries again); the connection keeps
    // reconnecting in the background. A cluster client holds commands while it reaches no node,
    // whatever the retries: the command timeout bounds that, so a sweep (and stop) never hangs.
    const { client, owned } = connectRedis(options.redis, 'jobs:reclaimer', { maxRetriesPerRequest: 1, commandTimeout: 10_000 });
    this.#client = client;
    this.#owned = owned;
  }

  #queue(name: string): Queue<unknown> {
    let queue = this.#queues.get(name);
    if (!queue) {
      queue = new Queue({ redis: this.#client, queue: name, kinds: empty, visibilityMs: this.#visibilityMs, maxAttempts: this.#maxAttempts, eventLog: this.#eventLog, workerId: this.#workerId }) as Queue<unknown>;
      this.#queues.set(name, queue);
      if (this.#started) this.#runSchedules(queue);
    }
    return queue;
  }

  #runSchedules(queue: Queue<unknown>): void {
    if (!this.#schedules || this.#stopped || this.#runners.has(queue.name)) return;
    this.#subscriber ??= new SharedSubscriber(this.#client);
    const runner = new ScheduleRunner({
      store: new RedisScheduleStore(queue.client, queue.keys, queue.options.eventLog === false ? 0 : queue.options.eventLog.maxLen, this.#subscriber, queue.options.metricsHistory),
      onError: (error) => this.#log.error({ queue: queue.name, err: toJobsError(error) }, 'schedule runner failed'),
    });
    this.#runners.set(queue.name, runner);
    runner.start();
  }

  /** The queues it sweeps now. */
  get queues(): string[] {
    return [...this.#queues.keys()].sort();
  }

  /**
   * Finds the queues to sweep: every queue in Redis, or the names given, where a partitioned
   * queue's name stands for its partitions (each an ordinary queue, found by SCAN as well).
   */
  async #discover(): Promise<void> {
    if (this.#discoveredAt > 0 && Date.now() - this.#discoveredAt < this.#discoverIntervalMs) return;
    let names: string[];
    let complete = true;
    if (this.#fixedQueues) {
      names = [];
      for (const name of this.#fixedQueues) {
        const count = await recordedPartitions(this.#client, name).catch(() => undefined);
        if (count === undefined) {
          // Redis away: keep what this name was found to be, or sweep it as given, so the
          // failure is reported against it; look it up again at the next sweep.
          complete = false;
          const known = [...this.#queues.keys()].filter((queue) => queue === name || queue.startsWith(`${name}:p`));
          names.push(...(known.length > 0 ? known : [name]));
          continue;
        }
        names.push(...(count > 1 ? partitionNames(name, count) : [name]));
      }
    } else {
      names = await discoverQueues(this.#client);
    }
    if (complete) this.#discoveredAt = Date.now();
    const before = this.queues.join(',');
    for (const name of names) this.#queue(name);
    // A given name that turned out to be partitioned is swept through its partitions only.
    for (const [name, queue] of this.#queues) {
      if (this.#fixedQueues && !names.includes(name)) {
        this.#queues.delete(name);
        void this.#runners.get(name)?.stop();
        this.#runners.delete(name);
        void queue.close();
      }
    }
    if (this.queues.join(',') !== before) this.#log.info({ queues: this.queues }, 'queues to sweep');
  }

  /** One sweep of every queue; resolves with what each sweep did. Errors are reported, not thrown. */
  runOnce(): Promise<SweepReport[]> {
    this.#running ??= this.#sweepAll().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #sweepAll(): Promise<SweepReport[]> {
    let failures = 0;
    try {
      await this.#discover();
    } catch (error) {
      failures += 1;
      this.#failed('*', error);
    }
    const reports: SweepReport[] = [];
    const names = new Set(this.#queues.keys());
    for (const queue of this.#queues.values()) {
      if (this.#stopped) break;
      try {
        // A partitioned queue's workers are read once, from partition 0's registry.
        const report = await sweepQueue(queue, this.#limits, registryHolderOf(queue.name, names) === queue.name);
        reports.push(report);
        this.metrics.recordSweep(report);
        this.#warnFailedDropped(report);
        const { queue: name, reclaimed, deadLettered, dropped, promoted, tidied, unparked, calls, largestCall, durationMs } = report;
        const fields = { queue: name, reclaimed, deadLettered, dropped, promoted, tidied, unparked, calls, largestCall, durationMs: Math.round(durationMs * 100) / 100 };
        if (reclaimed + deadLettered + dropped + promoted + unparked > 0) this.#log.info(fields, 'swept');
        else this.#log.debug(fields, 'swept');
        this.emit('sweep', report);
      } catch (error) {
        failures += 1;
        this.#failed(queue.name, error);
      }
    }
    if (!this.#stopped) this.#failedSweeps = failures > 0 ? this.#failedSweeps + 1 : 0;
    return reports;
  }

  /** Failed jobs are an incident's evidence: say so each time a queue's count of lost ones grows. */
  #warnFailedDropped({ queue, stats }: SweepReport): void {
    const before = this.#failedDropped.get(queue) ?? 0;
    this.#failedDropped.set(queue, stats.failedDroppedTotal);
    if (stats.failedDroppedTotal > before) {
      this.#log.warn({ queue, failedDroppedTotal: stats.failedDroppedTotal, since: stats.failedDroppedTotal - before }, 'failed jobs were deleted by the queue\'s failedHistory cap or failedTtlSeconds');
    }
  }

  #failed(queue: string, raw: unknown): void {
    // Typed before anything sees it: a raw ioredis error carries its command's arguments.
    const error = toJobsError(raw);
    const down = isJobsError(error, 'JOBS_REDIS_UNAVAILABLE');
    this.metrics.recordError(queue, down);
    this.#lastFailure = error;
    this.#log.error({ queue, err: error }, 'sweep failed');
    if (this.listenerCount('error') > 0) this.emit('error', error);
  }

  /** Sweeps now, then every `intervalMs` (measured from the end of one sweep to the next). */
  start(): void {
    if (this.#stopped || this.#timer) return;
    this.#started = true;
    for (const queue of this.#queues.values()) this.#runSchedules(queue);
    const loop = (): void => {
      void this.runOnce().finally(() => {
        if (!this.#stopped) this.#timer = setTimeout(loop, this.intervalMs);
      });
    };
    loop();
  }

  /**
   * Healthy when Redis answers a PING within `timeoutMs` and fewer than
   * `unhealthyAfterFailedSweeps` sweeps in a row have failed; else the reason.
   */
  async healthy(timeoutMs = 1_000): Promise<{ ok: boolean; error?: string }> {
    const redis = await this.#ping(timeoutMs);
    if (!redis.ok || this.#failedSweeps < this.#unhealthyAfter) return redis;
    const last = this.#lastFailure instanceof Error ? this.#lastFailure.message : String(this.#lastFailure);
    return { ok: false, error: `the last ${this.#failedSweeps} sweeps failed; the last error: ${last}` };
  }

  async #ping(timeoutMs: number): Promise<{ ok: boolean; error?: string }> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.#client.ping(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
      return { ok: true };
    } catch (error) {
      const typed = toJobsError(error);
      return { ok: false, error: typed instanceof Error ? typed.message : String(typed) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops sweeping, waits for a sweep in flight, closes the connection it opened. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
    await Promise.all([...this.#runners.values()].map((runner) => runner.stop()));
    await this.#subscriber?.close();
    await Promise.all([...this.#queues.values()].map((queue) => queue.close()));
    if (this.#owned) await closeClient(this.#client);
  }
}

/**
 * Creates a reclaimer (not started: call `start()`, or `runOnce()` from a cron job).
 *
 * @example
 * ```ts
 * const reclaimer = createReclaimer({ redis: process.env.REDIS_URL, queues: ['mail'], intervalMs: 1_000 });
 * reclaimer.start();
 * process.once('SIGTERM', () => void reclaimer.stop());
 * ```
 */
export function createReclaimer(options: ReclaimerOptions): Reclaimer {
  return new Reclaimer(options);
}
