import type { QueueStats, WorkerInfo } from '@jobs/core';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { SweepReport } from './sweep.ts';

const STATES = ['pending', 'processing', 'delayed', 'completed', 'failed'] as const;
const COUNTERS = {
  enqueued: 'enqueuedTotal',
  completed: 'completedTotal',
  failed: 'failedTotal',
  retried: 'retriedTotal',
  reclaimed: 'reclaimedTotal',
  cancelled: 'cancelledTotal',
  released: 'releasedTotal',
  snoozed: 'snoozedTotal',
  handed_off: 'handedOffTotal',
  redriven: 'redrivenTotal',
  dropped: 'droppedTotal',
  failed_dropped: 'failedDroppedTotal',
  expired: 'expiredTotal',
} as const satisfies Record<string, keyof QueueStats>;

/**
 * The reclaimer's Prometheus metrics: the state of every queue it sweeps (read from Redis, so
 * they are the queue's own, whichever replica reports them) and what this process did.
 */
export class ReclaimerMetrics {
  /** The registry to serve (`await registry.metrics()`). */
  readonly registry: Registry;
  readonly #depth: Gauge;
  readonly #jobs: Counter;
  readonly #oldestPending: Gauge;
  readonly #paused: Gauge;
  readonly #handled: Counter;
  readonly #lastSweep: Gauge;
  readonly #duration: Histogram;
  readonly #errors: Counter;
  readonly #redisUp: Gauge;
  readonly #workers: Gauge;
  /** Per queue, every kind seen with a live worker, so that its gauge can show the last one gone. */
  readonly #workerKinds = new Map<string, Set<string>>();
  /** Per queue, every kind seen paused, so that its gauge can show the resume. */
  readonly #pausedKinds = new Map<string, Set<string>>();

  constructor(registry = new Registry(), options: { defaultMetrics?: boolean } = {}) {
    this.registry = registry;
    const registers = [registry];
    this.#depth = new Gauge({ name: 'jobs_queue_depth', help: 'Jobs in each list or set of a queue.', labelNames: ['queue', 'state'], registers });
    this.#jobs = new Counter({ name: 'jobs_queue_jobs_total', help: 'Counters kept in Redis by the queue scripts, by event.', labelNames: ['queue', 'event'], registers });
    this.#oldestPending = new Gauge({ name: 'jobs_queue_oldest_pending_age_seconds', help: 'How long the oldest pending job has waited (0 when none).', labelNames: ['queue'], registers });
    this.#paused = new Gauge({ name: 'jobs_queue_paused', help: '1 while the queue is paused (kind="" for the whole queue), else 0.', labelNames: ['queue', 'kind'], registers });
    this.#handled = new Counter({ name: 'jobs_reclaimer_jobs_total', help: 'Jobs this reclaimer moved, by action.', labelNames: ['queue', 'action'], registers });
    this.#lastSweep = new Gauge({ name: 'jobs_reclaimer_last_sweep_jobs', help: 'Jobs moved by the last sweep of a queue, by action.', labelNames: ['queue', 'action'], registers });
    this.#duration = new Histogram({
      name: 'jobs_reclaimer_sweep_duration_seconds',
      help: 'How long one sweep of a queue took.',
      labelNames: ['queue'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.#errors = new Counter({ name: 'jobs_reclaimer_sweep_errors_total', help: 'Sweeps that failed.', labelNames: ['queue'], registers });
    this.#redisUp = new Gauge({ name: 'jobs_redis_up', help: '1 when the last command to Redis succeeded, else 0.', registers });
    this.#workers = new Gauge({ name: 'jobs_workers', help: 'Live workers of a queue that handle each kind, from their heartbeats (kind="": every live worker of the queue).', labelNames: ['queue', 'kind'], registers });
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  }

  /** Records a finished sweep. */
  recordSweep(report: SweepReport): void {
    const queue = report.queue;
    this.#duration.observe({ queue }, report.durationMs / 1000);
    for (const action of ['reclaimed', 'deadLettered', 'dropped', 'promoted'] as const) {
      const label = action === 'deadLettered' ? 'dead_lettered' : action;
      this.#lastSweep.set({ queue, action: label }, report[action]);
      if (report[action] > 0) this.#handled.inc({ queue, action: label }, report[action]);
    }
    this.recordStats(queue, report.stats);
    if (report.workers !== null) this.recordWorkers(queue, report.workers);
    this.#redisUp.set(1);
  }

  /** Mirrors a queue's live workers into `jobs_workers`: per kind, and every worker under kind "". */
  recordWorkers(queue: string, workers: readonly WorkerInfo[]): void {
    const counts = new Map<string, number>();
    for (const worker of workers) for (const kind of new Set(worker.kinds)) counts.set(kind, (counts.get(kind) ?? 0) + 1);
    const seen = this.#workerKinds.get(queue) ?? new Set<string>();
    // A kind whose last worker went away reads 0 rather than vanishing: that is the alert.
    for (const kind of seen) if (!counts.has(kind)) this.#workers.set({ queue, kind }, 0);
    for (const [kind, count] of counts) {
      this.#workers.set({ queue, kind }, count);
      seen.add(kind);
    }
    this.#workers.set({ queue, kind: '' }, workers.length);
    this.#workerKinds.set(queue, seen);
  }

  /** Mirrors a queue's stats into the gauges and counters. */
  recordStats(queue: string, stats: QueueStats): void {
    for (const state of STATES) this.#depth.set({ queue, state }, stats[`${state}Depth`]);
    for (const [event, field] of Object.entries(COUNTERS)) {
      // The value lives in Redis: replace ours with it (it only ever grows, like a counter).
      this.#jobs.remove({ queue, event });
      this.#jobs.inc({ queue, event }, stats[field]);
    }
    this.#oldestPending.set({ queue }, (stats.oldestPendingAgeMs ?? 0) / 1000);
    this.#depth.set({ queue, state: 'prioritized' }, stats.prioritizedDepth);
    this.#depth.set({ queue, state: 'parked' }, stats.parkedDepth);
    // Not counted when too many groups wait: no sample rather than a wrong one.
    if (stats.groupedDepth === null) this.#depth.remove({ queue, state: 'grouped' });
    else this.#depth.set({ queue, state: 'grouped' }, stats.groupedDepth);
    // A kind resumed since the last sweep goes back to 0 rather than vanishing.
    for (const kind of this.#pausedKinds.get(queue) ?? []) this.#paused.set({ queue, kind }, 0);
    this.#paused.set({ queue, kind: '' }, stats.paused ? 1 : 0);
    for (const kind of stats.pausedKinds) this.#paused.set({ queue, kind }, 1);
    this.#pausedKinds.set(queue, new Set([...(this.#pausedKinds.get(queue) ?? []), ...stats.pausedKinds]));
  }

  /** Records a sweep that failed. */
  recordError(queue: string, redisDown: boolean): void {
    this.#errors.inc({ queue });
    if (redisDown) this.#redisUp.set(0);
  }
}
