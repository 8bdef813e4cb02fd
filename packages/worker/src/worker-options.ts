import type { Logger, QueueOptions, RedisConnectionInput, Kinds } from '@jobs/core';
import { QUEUE_OPTION_KEYS, type OptionKeys } from '@jobs/core/internal';
import type { HandlerMap } from './handler-map.ts';
import type { WorkerMetricsOptions } from './worker-metrics.ts';
import type { WorkerTracingOptions } from './worker-tracing.ts';

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
   * `jobsctl workers`): its id, host, pid, version, kinds, concurrency, whether it is quiet and the ids of the jobs it
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
export const WORKER_OPTION_KEYS: OptionKeys<WorkerOptions<unknown>> = {
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
