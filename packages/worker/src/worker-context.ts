import type { EventEmitter } from 'node:events';
import type { Logger } from '@jobs/core';
import type { Clock } from './clock.ts';
import type { HistoryCounts } from './history-counts.ts';
import type { WorkerEventMap } from './worker-events.ts';
import type { WorkerMetrics } from './worker-metrics.ts';
import type { WorkerTracing } from './worker-tracing.ts';

/** What every part of one worker shares: its clock, where it reports, and its stop signal. */
export interface WorkerContext {
  readonly clock: Clock;
  readonly log: Logger;
  /** Where `completed`, `retrying`, `failed`, `lost`, `error` and `closed` go (the worker). */
  readonly events: EventEmitter<WorkerEventMap>;
  /** Aborts when the worker starts closing. */
  readonly stop: AbortSignal;
  /** The worker's Prometheus metrics, when it was given a registry. */
  readonly metrics: WorkerMetrics | undefined;
  /** The counts for the queue's metrics history, when it is on. */
  readonly history: HistoryCounts | undefined;
  /** A span per attempt, when tracing is on. */
  readonly tracing: WorkerTracing | undefined;
  /** Logs `error` with `message` and emits it as an `error` event to those who listen. */
  reportError(error: unknown, message: string): void;
}
