import {
  assertJobId,
  InvalidArgumentError,
  Queue,
  type Batch,
  type BatchOptions,
  type BatchState,
  type CancelOutcome,
  type ChangePriorityOutcome,
  type ChildResult,
  type EventFollower,
  type FollowOptions,
  type JobTimeline,
  type JobAttempts,
  type JobLogs,
  type EnqueueResult,
  type FlowRequest,
  type FlowResult,
  type JobRecord,
  type KindName,
  type Kinds,
  type LimitsState,
  type PartitionedEnqueueOptions,
  type PromoteOutcome,
  type QueueLimits,
  type PartitionedEnqueueRequest,
  type QueueOptions,
  type QueueStats,
  type RedisConnectionInput,
  type RemoveOutcome,
  type Schedules,
  silentLogger,
  type Logger,
} from '@jobs/core';
import { assertOptionKeys, assertWholeNumber, type OptionKeys } from '@jobs/core/internal';
import { checkTracingOptions, ProducerTracing, type ProducerTracingOptions } from './producer-tracing.ts';
import { ResultWaiter } from './result-waiter.ts';

/** Options of {@link createProducer}. */
export interface ProducerOptions<P> extends Pick<QueueOptions, 'idempotencyTtlMs' | 'events' | 'durability' | 'eventLog' | 'metricsHistory'> {
  /** Where Redis is: a `redis://` or `rediss://` URL (ACL user and password in it work), ioredis options, or an ioredis `Redis`/`Cluster` you own (it is not closed by `close()`). */
  redis: RedisConnectionInput;
  /** The queue's name. */
  queue: string;
  /** The job kinds, from `defineKinds`. */
  kinds: Kinds<P>;
  /**
   * For a queue too hot for one Redis shard: spread it over this many partitions (each its own
   * hash slot). Workers and the reclaimer must be given the same count; Redis records it and
   * refuses a client with another. Default 1 (a plain queue).
   */
  partitions?: number;
  /** Client name shown by `CLIENT LIST`. Default `jobs:producer:<queue>`. */
  connectionName?: string;
  /** A command (an enqueue...) without an answer for this long fails with `JOBS_REDIS_UNAVAILABLE`. Default 10 s. */
  commandTimeoutMs?: number;
  /**
   * OpenTelemetry: a PRODUCER span per `enqueue` (per `enqueueMany` call, with its count), a
   * child of the active span, whose context each job stores as its W3C `traceparent`, so the
   * worker's span for each attempt links to it. Give the tracer (`{ tracer }`) or a provider
   * (`{ tracerProvider }`; `{ tracerProvider: trace }` with `trace` of @opentelemetry/api for the
   * global one). Off (and costing nothing: no field stored) when not given or false. Tracing
   * never fails an enqueue.
   */
  tracing?: false | ProducerTracingOptions;
  /** Structured logs (pino or the like): what went wrong beside a call (tracing that failed). Default: silent. */
  logger?: Logger;
}

/** The keys of {@link ProducerOptions}: any other is refused. */
const PRODUCER_OPTION_KEYS: OptionKeys<ProducerOptions<unknown>> = {
  redis: true,
  queue: true,
  kinds: true,
  partitions: true,
  connectionName: true,
  commandTimeoutMs: true,
  tracing: true,
  logger: true,
  idempotencyTtlMs: true,
  events: true,
  durability: true,
  eventLog: true,
  metricsHistory: true,
};

/** `options` with `traceparent` added, unless it has one or there is none to add. */
function withTraceparent<O extends { traceparent?: string }>(options: O | undefined, traceparent: string | undefined): O | undefined {
  if (traceparent === undefined || (typeof options === 'object' && options !== null && options.traceparent !== undefined)) return options;
  if (options !== undefined && (typeof options !== 'object' || options === null)) return options;
  return { ...(options as O), traceparent };
}

/** How many jobs a flow holds (what its span's count says); the queue checks the rest. */
function flowSize(node: { children?: unknown }, depth = 1): number {
  const children = Array.isArray(node.children) && depth < 40 ? (node.children as { children?: unknown }[]) : [];
  let size = 1;
  for (const child of children) size += typeof child === 'object' && child !== null ? flowSize(child, depth + 1) : 1;
  return size;
}

/** The one kind of `jobs`, when every job is of one kind. */
function kindOf(jobs: readonly { kind?: unknown }[]): string | undefined {
  const kind = jobs[0]?.kind;
  return typeof kind === 'string' && jobs.every((job) => job?.kind === kind) ? kind : undefined;
}

/** Options of {@link Producer.waitForResult}. */
export interface WaitForResultOptions {
  /** Give up after this long with `JOBS_TIMEOUT`. Default 30 s. */
  timeoutMs?: number;
  /** Stop waiting when this aborts (rejects with its reason). */
  signal?: AbortSignal;
  /**
   * Called with each progress value the job's handler reports (`ctx.progress`), and at once with
   * the last one reported before the wait began. Needs the queue's events on (the default).
   */
  onProgress?: (progress: unknown) => void;
}

/**
 * Enqueues typed, schema-validated jobs. Make one with {@link createProducer}; share it across
 * requests; `close()` it on shutdown.
 */
export class Producer<P> {
  /** The queue's name. */
  readonly queue: string;
  readonly #queue: Queue<P>;
  readonly #results: ResultWaiter;
  /** A span per enqueue call, when tracing is on. */
  readonly #tracing: ProducerTracing | undefined;

  constructor(options: ProducerOptions<P>) {
    if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'expected { redis, queue, kinds }');
    assertOptionKeys('options', options, PRODUCER_OPTION_KEYS);
    const { tracing } = options;
    const tracingOptions = checkTracingOptions(tracing);
    this.#queue = new Queue({
      redis: options.redis,
      queue: options.queue,
      kinds: options.kinds,
      partitions: options.partitions ?? 1,
      connectionName: options.connectionName ?? `jobs:producer:${options.queue}`,
      ...(options.idempotencyTtlMs !== undefined && { idempotencyTtlMs: options.idempotencyTtlMs }),
      ...(options.events !== undefined && { events: options.events }),
      ...(options.durability !== undefined && { durability: options.durability }),
      ...(options.eventLog !== undefined && { eventLog: options.eventLog }),
      ...(options.metricsHistory !== undefined && { metricsHistory: options.metricsHistory }),
      ...(options.commandTimeoutMs !== undefined && { commandTimeoutMs: options.commandTimeoutMs }),
    });
    this.queue = this.#queue.name;
    this.#tracing = tracingOptions === undefined ? undefined : ProducerTracing.open(this.queue, tracingOptions, options.logger ?? silentLogger);
    const queue = this.#queue;
    // A foreign id (no partition suffix) of a partitioned queue: partition 0's channel, and the re-reads.
    const channelOf = (id: string): string => (queue.partitionOf(id) ?? queue.partitions[0])?.keys.events ?? queue.keys.events;
    this.#results = new ResultWaiter(queue.client, channelOf, (id) => queue.getJob(id));
  }

  /**
   * Validates `payload` against the kind's schema and enqueues it in one round trip. Returns
   * the job id; with an `idempotencyKey` still held, the id of the job that holds it (and
   * nothing is written). Bad input throws a typed error and writes nothing.
   *
   * @example
   * ```ts
   * const id = await producer.enqueue('email', { recipient: 'alice@example.com' }, { delayMs: 60_000 });
   * ```
   */
  enqueue<N extends KindName<P>>(kind: N, payload: P[N], options?: PartitionedEnqueueOptions): Promise<string> {
    const tracing = this.#tracing;
    if (tracing === undefined) return this.#queue.enqueue(kind, payload, options);
    return tracing.send(
      { count: 1, kind: typeof kind === 'string' ? kind : undefined },
      (traceparent) => this.#queue.enqueue(kind, payload, withTraceparent(options, traceparent)),
      (id) => [id],
    );
  }

  /**
   * Enqueues many jobs in one round trip. Every payload is validated first: one bad job and
   * none is written.
   */
  enqueueMany(jobs: readonly PartitionedEnqueueRequest<P>[]): Promise<EnqueueResult[]> {
    const tracing = this.#tracing;
    // Not an array: the queue refuses it as it stands.
    if (tracing === undefined || !Array.isArray(jobs)) return this.#queue.enqueueMany(jobs);
    return tracing.send(
      { count: jobs.length, kind: kindOf(jobs) },
      (traceparent) => {
        if (traceparent === undefined) return this.#queue.enqueueMany(jobs);
        // A malformed job is passed as it is, for the queue to refuse with its index.
        const traced = jobs.map((job) => (typeof job === 'object' && job !== null ? { ...job, options: withTraceparent(job.options, traceparent) } : job));
        return this.#queue.enqueueMany(traced as readonly PartitionedEnqueueRequest<P>[]);
      },
      (results) => results.map((result) => result.id),
    );
  }

  /**
   * Enqueues a flow: a parent job and its children (any kinds, nested), in one round trip and
   * one atomic script, all in this queue's one hash slot (on a partitioned queue, in one
   * partition). Every payload is validated first: one bad job and nothing is written. The parent
   * runs once every child has completed and reads their results (`ctx.children()` in a worker,
   * {@link children} here); a child that fails for good fails the parent with
   * `JOBS_CHILD_FAILED`, unless the parent's `options.onChildFailure` is `'ignore'`. Cancelling
   * the parent cancels its unstarted children. Returns the ids, in the shape of the request.
   */
  enqueueFlow(flow: FlowRequest<P>): Promise<FlowResult> {
    const tracing = this.#tracing;
    // Not an object: the queue refuses it as it stands.
    if (tracing === undefined || typeof flow !== 'object' || flow === null) return this.#queue.enqueueFlow(flow);
    // The flow's jobs take the root's traceparent (see Queue.enqueueFlow).
    return tracing.send(
      { count: flowSize(flow), kind: typeof flow.kind === 'string' ? flow.kind : undefined },
      (traceparent) => this.#queue.enqueueFlow(traceparent === undefined ? flow : ({ ...flow, options: withTraceparent(flow.options, traceparent) } as FlowRequest<P>)),
      (result) => [result.id],
    );
  }

  /**
   * A batch: add jobs of any kinds (`batch.add`, streamed 1,000 per call), then `batch.seal()`.
   * Its callbacks are jobs too, each enqueued exactly once: `onDeath` when the first job fails
   * for good; once sealed and every job ended, `onComplete`, and `onSuccess` when every one
   * completed. `batch.state()` (or {@link batchState}) reads its counts.
   *
   * @example
   * ```ts
   * const batch = producer.batch({ onSuccess: { kind: 'report', payload: { campaign: 'dec' } } });
   * await batch.add(recipients.map((recipient) => ({ kind: 'email', payload: { recipient } })));
   * await batch.seal();
   * ```
   */
  batch(options: BatchOptions<P> = {}): Batch<P> {
    return this.#queue.batch(options);
  }

  /** The state of batch `id` (total, succeeded, failed, cancelled, pending, callbacks fired), or null. */
  batchState(id: string): Promise<BatchState | null> {
    return this.#queue.batchState(id);
  }

  /** The children of flow parent `id` by child id, with their kind and how each settled so far. */
  children(id: string): Promise<Record<string, ChildResult>> {
    return this.#queue.children(id);
  }

  /** The job with this id, or null (no such job, or its hash has expired). */
  getJob(id: string): Promise<JobRecord | null> {
    return this.#queue.getJob(id);
  }

  /**
   * Waits until the job completes and returns its result. A job that failed for good, or was
   * cancelled, rejects with `JOBS_JOB_FAILED`; no answer in time rejects with `JOBS_TIMEOUT`.
   * A job that completes at any moment after the call, even before the wait is set up, is seen.
   */
  async waitForResult<R = unknown>(id: string, options: WaitForResultOptions = {}): Promise<R> {
    assertJobId(id);
    assertOptionKeys<WaitForResultOptions>('options', options, { timeoutMs: true, signal: true, onProgress: true });
    const timeoutMs = assertWholeNumber('timeoutMs', options.timeoutMs ?? 30_000, 0, 86_400_000);
    if (options.onProgress !== undefined && typeof options.onProgress !== 'function') throw new InvalidArgumentError('onProgress', 'expected a function');
    const job = await this.#results.wait(id, timeoutMs, options.signal, options.onProgress);
    return job.result as R;
  }

  /**
   * Pauses the queue, or with `kind` one kind of it: once this resolves no worker starts a new
   * job of it (running jobs finish); enqueues go on. Kept in Redis until {@link resume}, across
   * worker and Redis restarts; on a partitioned queue, every partition is paused. `by` records
   * who paused (a short label), which `why()` reports as `pausedBy`.
   *
   * @example
   * ```ts
   * await producer.pause({ kind: 'webhook' }); // the webhook endpoint is down
   * ```
   */
  pause(options: { kind?: KindName<P>; by?: string } = {}): Promise<void> {
    return this.#queue.pause(options);
  }

  /** Resumes the queue (or one kind): waiting workers start its jobs at once. */
  resume(options: { kind?: KindName<P> } = {}): Promise<void> {
    return this.#queue.resume(options);
  }

  /**
   * Replaces the queue's rate limits and concurrency caps, kept in Redis so that every worker
   * obeys them from its next claim; `{}` removes them. Bad values (a limit of 0, a window under
   * 10 ms, an unknown kind) throw `JOBS_INVALID_ARGUMENT` and write nothing. On a partitioned
   * queue each partition gets them (they hold per partition).
   *
   * @example
   * ```ts
   * await producer.setLimits({ kinds: { webhook: { rate: { max: 100, windowMs: 1000 }, concurrency: 10 } }, groups: { concurrency: 1 } });
   * // The whole queue: 50 running at once, 100 starts a second spread evenly.
   * await producer.setLimits({ concurrency: 50, rate: { max: 100, windowMs: 1000, spread: true } });
   * ```
   */
  setLimits(limits: QueueLimits): Promise<void> {
    return this.#queue.setLimits(limits);
  }

  /** The queue's limits as stored in Redis, and the kinds a handler's pushback holds back. */
  limits(): Promise<LimitsState> {
    return this.#queue.limits();
  }

  /** Cancels a job that has not started (pending, delayed, or a flow's parent still waiting: its unstarted children too). */
  cancel(id: string): Promise<CancelOutcome> {
    return this.#queue.cancel(id);
  }

  /** Starts a delayed job now (it still waits for a paused kind, a limit or its group's turn); see core's `Queue.promote`. */
  promote(id: string): Promise<PromoteOutcome> {
    return this.#queue.promote(id);
  }

  /** Gives a job that has not started a new priority (-1000 to 1000, higher first); see core's `Queue.changePriority`. */
  changePriority(id: string, priority: number): Promise<ChangePriorityOutcome> {
    return this.#queue.changePriority(id, priority);
  }

  /** Deletes a job that is not running, with its idempotency key; a waiter of its result hears `JOBS_NOT_FOUND`. See core's `Queue.remove`. */
  remove(id: string): Promise<RemoveOutcome> {
    return this.#queue.remove(id);
  }

  /**
   * Follows the queue's event log (the queue's `eventLog` option) from `from` (`'$'`: from now,
   * `'0'`: the oldest kept, or an event's id to resume after it): an async iterable of events,
   * with a gap marker when the capped log was trimmed past the cursor. A partitioned queue
   * keeps a log per partition: pass `partition`.
   */
  events(options: FollowOptions & { partition?: number } = {}): Promise<EventFollower> {
    return this.#queue.events(options);
  }

  /** A job's own events from the event log, oldest first; null when there is no such job. */
  timeline(id: string, options: { limit?: number } = {}): Promise<JobTimeline | null> {
    return this.#queue.timeline(id, options);
  }

  /** A job's attempts, oldest first, each with its worker, times, outcome and error (see core's `Queue.attempts`); null when there is no such job. */
  attempts(id: string): Promise<JobAttempts | null> {
    return this.#queue.attempts(id);
  }

  /** A job's log lines (a handler's `ctx.log`), oldest first (see core's `Queue.logs`); null when there is no such job. */
  logs(id: string, options: { limit?: number } = {}): Promise<JobLogs | null> {
    return this.#queue.logs(id, options);
  }

  /**
   * The queue's schedules: `upsert` a kind and payload on a cron pattern (with a time zone) or an
   * interval, `list` them with their next runs, `pause`, `resume`, `remove`. Workers and the
   * reclaimer daemon fire the ticks, one job per tick. On a partitioned queue, schedules and
   * their jobs live in partition 0.
   *
   * @example
   * ```ts
   * await producer.schedules.upsert({ id: 'digest', kind: 'email', payload: { recipient: 'team@example.com' }, cron: '0 8 * * *', tz: 'Europe/Paris' });
   * ```
   */
  get schedules(): Schedules<P> {
    return this.#queue.schedules;
  }

  /** The queue's depths and counters. */
  stats(): Promise<QueueStats> {
    return this.#queue.stats();
  }

  /** Closes the connections this producer opened; a script that used it can then exit. */
  async close(): Promise<void> {
    await this.#results.close();
    await this.#queue.close();
  }
}

/**
 * Creates a producer for one queue.
 *
 * @example
 * ```ts
 * const producer = createProducer({ redis: process.env.REDIS_URL, queue: 'mail', kinds });
 * const id = await producer.enqueue('email', { recipient: 'alice@example.com' });
 * const result = await producer.waitForResult(id, { timeoutMs: 10_000 });
 * await producer.close();
 * ```
 */
export function createProducer<P>(options: ProducerOptions<P>): Producer<P> {
  return new Producer(options);
}
