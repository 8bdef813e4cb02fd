import { InvalidArgumentError, type ClaimedJob } from '@jobs/core';
import type * as PromClient from 'prom-client';

/**
 * A prom-client `Registry` (the one your service's `/metrics` serves). Typed by what the worker
 * uses of it, so that @jobs/worker's types do not need prom-client installed.
 */
export interface MetricsRegistry {
  registerMetric(metric: never): void;
}

/**
 * The prom-client module (`import * as promClient from 'prom-client'`), typed by what the worker
 * uses of it: its metric classes, and its default registry.
 */
export interface PromClientModule {
  Counter: new (configuration: never) => unknown;
  Gauge: new (configuration: never) => unknown;
  Histogram: new (configuration: never) => unknown;
  register: MetricsRegistry;
}

/**
 * Options of the worker's Prometheus metrics (see `WorkerOptions.metrics`). The worker never
 * loads prom-client itself (so a bundled worker counts like any other): it makes its metrics
 * with the classes of the module you pass, on the registry you pass.
 */
export interface WorkerMetricsOptions {
  /** Your service's prom-client module: `import * as promClient from 'prom-client'`. */
  promClient: PromClientModule;
  /** Where the worker registers its metrics: your service's registry. Default `promClient.register` (prom-client's global one). */
  registry?: MetricsRegistry;
}

/** The checked metrics options, the registry filled in (typed structurally, so the declarations need no prom-client). */
export interface ResolvedMetricsOptions {
  readonly promClient: PromClientModule;
  readonly registry: MetricsRegistry;
}

/**
 * `metrics` as given to `createWorker`, checked: undefined (off), or `{ promClient, registry? }`.
 * Anything else (a registry alone included) is a typed error naming the field.
 */
export function checkMetricsOptions(metrics: unknown): ResolvedMetricsOptions | undefined {
  if (metrics === undefined) return undefined;
  if (typeof metrics !== 'object' || metrics === null) throw new InvalidArgumentError('metrics', "expected { promClient, registry? } (promClient: import * as promClient from 'prom-client')");
  for (const key of Object.keys(metrics)) {
    if (key !== 'promClient' && key !== 'registry') throw new InvalidArgumentError(`metrics.${key}`, 'unknown option (expected promClient or registry)');
  }
  const { promClient, registry } = metrics as { promClient?: Partial<Record<keyof PromClientModule, unknown>> | null; registry?: unknown };
  if (typeof promClient !== 'object' || promClient === null || ['Counter', 'Gauge', 'Histogram'].some((name) => typeof promClient[name as keyof PromClientModule] !== 'function')) {
    throw new InvalidArgumentError('metrics.promClient', "expected the prom-client module (import * as promClient from 'prom-client'), whose metric classes the worker uses");
  }
  const target = registry ?? promClient.register;
  if (typeof (target as { registerMetric?: unknown } | null | undefined)?.registerMetric !== 'function') {
    throw new InvalidArgumentError('metrics.registry', 'expected a prom-client Registry (e.g. `register` from prom-client, or `new Registry()`)');
  }
  return { promClient: promClient as unknown as PromClientModule, registry: target as MetricsRegistry };
}

/** How a job's attempt ended, as the duration histogram labels it. */
export type AttemptOutcome = 'completed' | 'retried' | 'delayed' | 'failed';

/** Seconds, for run times from a millisecond to minutes. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Seconds, for waits in the queue from a millisecond to an hour. */
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600];

/** The metrics of one registry, shared by every worker of this process that registers on it. */
interface RegistryMetrics {
  readonly duration: PromClient.Histogram<'queue' | 'kind' | 'outcome'>;
  readonly wait: PromClient.Histogram<'queue' | 'kind'>;
  readonly renewals: PromClient.Counter<'queue'>;
  readonly lost: PromClient.Counter<'queue' | 'kind'>;
  readonly rateLimitWaits: PromClient.Counter<'queue' | 'kind'>;
  readonly rateLimitWait: PromClient.Histogram<'queue' | 'kind'>;
  /** Per worker, its queue and how many jobs it runs now (the in-flight gauge sums them per queue when scraped). */
  readonly running: Map<WorkerMetrics, { readonly queue: string; readonly count: () => number }>;
}

const byRegistry = new WeakMap<object, RegistryMetrics>();

/** Registers the worker metrics on `registry` with `promClient`'s classes, once per registry. */
function registryMetrics(options: ResolvedMetricsOptions): RegistryMetrics {
  const known = byRegistry.get(options.registry);
  if (known) return known;
  const prom = options.promClient as unknown as typeof PromClient;
  const registry = options.registry as PromClient.Registry;
  const registers = [registry];
  const running: RegistryMetrics['running'] = new Map();
  const metrics: RegistryMetrics = {
    duration: new prom.Histogram({
      name: 'jobs_worker_job_duration_seconds',
      help: "How long a job's handler ran, by kind and outcome (completed, retried, delayed, failed).",
      labelNames: ['queue', 'kind', 'outcome'],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    wait: new prom.Histogram({
      name: 'jobs_worker_job_wait_seconds',
      help: 'How long a job waited from its enqueue to its claim (Redis clock), by kind.',
      labelNames: ['queue', 'kind'],
      buckets: WAIT_BUCKETS,
      registers,
    }),
    renewals: new prom.Counter({ name: 'jobs_worker_lease_renewals_total', help: 'Leases renewed by the workers.', labelNames: ['queue'], registers }),
    lost: new prom.Counter({ name: 'jobs_worker_lost_claims_total', help: 'Jobs whose claim a worker lost (the lease expired and the job was reclaimed).', labelNames: ['queue', 'kind'], registers }),
    rateLimitWaits: new prom.Counter({ name: 'jobs_worker_rate_limit_waits_total', help: "Times a handler's pushback (RateLimitedError) held its kind back, by kind.", labelNames: ['queue', 'kind'], registers }),
    rateLimitWait: new prom.Histogram({
      name: 'jobs_worker_rate_limit_wait_seconds',
      help: "How long a handler's pushback (RateLimitedError) held its kind back, by kind.",
      labelNames: ['queue', 'kind'],
      buckets: WAIT_BUCKETS,
      registers,
    }),
    running,
  };
  new prom.Gauge({
    name: 'jobs_worker_jobs_in_flight',
    help: 'Jobs the workers of this process are running now.',
    labelNames: ['queue'],
    registers,
    collect() {
      this.reset();
      const totals = new Map<string, number>();
      for (const { queue, count } of running.values()) totals.set(queue, (totals.get(queue) ?? 0) + count());
      for (const [queue, total] of totals) this.set({ queue }, total);
    },
  });
  byRegistry.set(registry, metrics);
  return metrics;
}

/**
 * One worker's Prometheus metrics, on the service's registry: how long jobs ran and waited (per
 * kind and outcome), jobs in flight, lease renewals, lost claims and rate-limit waits. Made only when
 * metrics are asked for; the worker then calls it once per start and once per outcome. Workers sharing a
 * registry share its metrics, told apart by their `queue` label.
 */
export class WorkerMetrics {
  readonly #queue: string;
  readonly #metrics: RegistryMetrics;

  /** Registers (once per registry) and starts counting for queue `queue`; `running` reads the jobs in flight when scraped. */
  constructor(options: ResolvedMetricsOptions, queue: string, running: () => number) {
    this.#queue = queue;
    this.#metrics = registryMetrics(options);
    this.#metrics.running.set(this, { queue, count: running });
  }

  /** `job` of `kind` starts: how long it waited since its enqueue. */
  started(job: ClaimedJob, kind: string): void {
    if (job.enqueuedAtMs !== undefined) this.#metrics.wait.observe({ queue: this.#queue, kind }, Math.max(0, job.claimedAtMs - job.enqueuedAtMs) / 1_000);
  }

  /** `job`'s attempt ended with `outcome` after its handler ran `durationMs`. */
  ended(job: ClaimedJob, outcome: AttemptOutcome, durationMs: number): void {
    this.#metrics.duration.observe({ queue: this.#queue, kind: job.kind ?? 'unknown', outcome }, durationMs / 1_000);
  }

  /** The claim on `job` was lost. */
  lost(job: ClaimedJob): void {
    this.#metrics.lost.inc({ queue: this.#queue, kind: job.kind ?? 'unknown' });
  }

  /**
   * A handler's pushback (`RateLimitedError`) held `kind` back for `waitMs`: counted, and the
   * wait observed. Limits set with `setLimits` hold jobs back inside Redis and are not seen here.
   */
  rateLimited(kind: string, waitMs: number): void {
    const labels = { queue: this.#queue, kind };
    this.#metrics.rateLimitWaits.inc(labels);
    this.#metrics.rateLimitWait.observe(labels, Math.max(0, waitMs) / 1_000);
  }

  /** `count` leases were renewed. */
  renewed(count: number): void {
    if (count > 0) this.#metrics.renewals.inc({ queue: this.#queue }, count);
  }

  /** The worker closed: it no longer counts towards jobs in flight. */
  close(): void {
    this.#metrics.running.delete(this);
  }
}
