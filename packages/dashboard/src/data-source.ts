import type { AuditPage, AuditRecord, BatchState, CancelOutcome, ChangePriorityOutcome, JobAttempts, JobLogs, JobRecord, JobWhy, ListState, PromoteOutcome, QueueHistory, QueueStats, RemoveOutcome, WorkerInfo } from '@jobs/core';

/**
 * What a queue's admission says (its pauses and limits: what decides whether a waiting job may
 * start), when the queues have it: shown beside its depths.
 */
export interface QueueAdmissionState {
  readonly paused: boolean;
  /** The kinds paused on their own (each can be resumed from the page), sorted. */
  readonly pausedKinds?: readonly string[];
  /** The kinds the source knows the queue to have, offered when pausing a kind. */
  readonly kinds?: readonly string[];
  /** Limits by name (`concurrency`, `ratePerSecond`...), shown as given. */
  readonly limits?: ShownLimits;
}

/** @deprecated Use {@link QueueAdmissionState}. */
export type QueueFlowState = QueueAdmissionState;

/**
 * A queue's limits as the dashboard shows them: by name (`concurrency`, `ratePerSecond`...), each
 * value as given; null shows as none. (The limits a queue takes are core's `QueueLimits`.)
 */
export type ShownLimits = Readonly<Record<string, number | string | null>>;

/** What a pause or resume acts on: the whole queue, or one kind of it. */
export interface PauseTarget {
  /** A kind name: only that kind's jobs stop (or start again). */
  readonly kind?: string;
  /** Who pauses (a short label: the dashboard passes the session's role), recorded with the pause. */
  readonly by?: string;
}

/** @deprecated Use {@link PauseTarget}. */
export type FlowTarget = PauseTarget;

/** One entry of a job's timeline, when the queues keep an event log. */
export interface TimelineEntry {
  /** Unix milliseconds. */
  readonly atMs: number;
  /** What happened: `enqueued`, `claimed`, `failed`... */
  readonly event: string;
  /** More about it, shown as text. */
  readonly detail?: string;
}

/** A child of a flow's parent job, as its tree shows it. */
export interface ChildInfo {
  readonly id: string;
  readonly kind: string;
  /** `waiting` until it settles, then `completed`, `failed` or `cancelled`. */
  readonly status: string;
  /** Why it failed or was cancelled, as its parent recorded it. */
  readonly error?: string;
}

/** A schedule (a repeating job), when the queues have them. */
export interface ScheduleInfo {
  readonly name: string;
  readonly kind?: string;
  /** The cron expression or interval, as text. */
  readonly every: string;
  /** Unix milliseconds of the next run, or null when it has none. */
  readonly nextRunAtMs: number | null;
  /** Whether it runs: `active`, `paused`, or `done` (its last run is behind it). */
  readonly status?: string;
}

/**
 * Where the dashboard reads its queues and acts on them. {@link jobQueueSource} builds one from
 * `Queue`s; a service can write its own. The optional members are capabilities: the page shows
 * pause/resume, limits, schedules and timelines only when the source has them.
 */
export interface DashboardDataSource {
  /** The names of the queues to show, sorted. */
  queueNames(): readonly string[] | Promise<readonly string[]>;
  /** One consistent snapshot of a queue (a constant number of reads, whatever its depth). */
  stats(queue: string): Promise<QueueStats>;
  /** One page of a list: `limit` ids from `offset`, with their hashes. */
  list(queue: string, state: ListState, page: { offset: number; limit: number }): Promise<readonly JobRecord[]>;
  /** A job by id, or null. */
  getJob(queue: string, id: string): Promise<JobRecord | null>;
  /** Redrives one dead-lettered job: true, or the status that kept it (`not_found` when none). */
  retry(queue: string, id: string): Promise<true | string>;
  /** Redrives up to `max` of the oldest dead-lettered jobs; resolves with how many it redrove. */
  retryFailed(queue: string, max: number): Promise<number>;
  /** Cancels a pending or delayed job. */
  cancel(queue: string, id: string): Promise<CancelOutcome>;
  /** Deletes every key of the queue; resolves with how many. */
  purge(queue: string): Promise<number>;
  /**
   * Capability: the queue's paused state and limits. `stats` is the snapshot the caller has just
   * read of the queue, when it has one: a source may read the paused state from it.
   */
  flowState?(queue: string, stats?: QueueStats): Promise<QueueAdmissionState>;
  /** Capability: the queue's metrics history (core's `Queue.history`) for the last `sinceMs`, of one kind or all, for the charts. */
  history?(queue: string, options: HistoryQuery): Promise<QueueHistory>;
  /** Capability: stops claims on a queue, or with `target.kind` on one kind of it. */
  pause?(queue: string, target?: PauseTarget): Promise<void>;
  /** Capability: lets claims run again on a queue, or on one kind of it. */
  resume?(queue: string, target?: PauseTarget): Promise<void>;
  /** Capability: a job's events from the event log, oldest first. */
  timeline?(queue: string, id: string): Promise<readonly TimelineEntry[]>;
  /** Capability: why a job is not running (core's `Queue.why`), shown on its detail; null when there is no such job. */
  why?(queue: string, id: string): Promise<JobWhy | null>;
  /** Capability: the queue's schedules with their next run. */
  schedules?(queue: string): Promise<readonly ScheduleInfo[]>;
  /** Capability: the children of flow parent `id` (core's `Queue.children`), in the order they were enqueued; empty for a job without. */
  children?(queue: string, id: string): Promise<readonly ChildInfo[]>;
  /** Capability: the queue's live workers, from their heartbeats (one read): the card says when there is none. */
  workers?(queue: string): Promise<readonly WorkerInfo[]>;
  /**
   * Capability (with `resumeWorkers`): tells the queue's live workers (or the one `workerId`
   * names) to stop claiming (core's `Queue.quietWorkers`); resolves with the ids told.
   */
  quietWorkers?(queue: string, target: { workerId?: string }): Promise<{ readonly told: readonly string[] }>;
  /** Capability (with `quietWorkers`): tells them to claim again (core's `Queue.resumeWorkers`). */
  resumeWorkers?(queue: string, target: { workerId?: string }): Promise<{ readonly told: readonly string[] }>;
  /** Capability: starts a delayed job now (core's `Queue.promote`). */
  promote?(queue: string, id: string): Promise<PromoteOutcome>;
  /** Capability: gives a waiting job a new priority (core's `Queue.changePriority`). */
  changePriority?(queue: string, id: string, priority: number): Promise<ChangePriorityOutcome>;
  /** Capability: deletes a job that is not running (core's `Queue.remove`). */
  remove?(queue: string, id: string): Promise<RemoveOutcome>;
  /** Capability: a job's attempts, oldest first, each with its worker, times, outcome and error (core's `Queue.attempts`); null when there is no such job. */
  attempts?(queue: string, id: string): Promise<JobAttempts | null>;
  /** Capability: a job's log lines, the newest `limit`, oldest first (core's `Queue.logs`); null when there is no such job. */
  logs?(queue: string, id: string, limit: number): Promise<JobLogs | null>;
  /** Capability (with `auditTrail`): appends an action to the queue's audit trail (core's `Queue.recordAudit`). */
  recordAudit?(queue: string, record: AuditRecord, options: { maxEntries: number }): Promise<unknown>;
  /** Capability (with `recordAudit`): a page of the queue's audit trail, newest first (core's `Queue.auditTrail`). */
  auditTrail?(queue: string, page: { limit: number; before?: string }): Promise<AuditPage>;
  /** Capability: the queue's batches, newest first, at most `limit` (core's `Queue.batches`): their counts and callbacks. */
  batches?(queue: string, page: { limit: number }): Promise<readonly BatchState[]>;
}

/** What the history charts ask of a {@link DashboardDataSource.history}: the span (ms) and, optionally, one kind. */
export interface HistoryQuery {
  readonly sinceMs: number;
  readonly kind?: string;
}

/** The optional members of a {@link DashboardDataSource} that it has, for the page. */
export interface DashboardCapabilities {
  readonly attempts: boolean;
  readonly audit: boolean;
  readonly batches: boolean;
  readonly changePriority: boolean;
  readonly children: boolean;
  readonly flowState: boolean;
  readonly history: boolean;
  readonly logs: boolean;
  readonly pause: boolean;
  readonly promote: boolean;
  readonly remove: boolean;
  readonly timeline: boolean;
  readonly schedules: boolean;
  readonly workers: boolean;
  /** Quiet and resume the queue's workers from the workers page. */
  readonly workerOrders: boolean;
}

/** Which capabilities `source` has. */
export function capabilitiesOf(source: DashboardDataSource): DashboardCapabilities {
  return {
    attempts: typeof source.attempts === 'function',
    audit: typeof source.recordAudit === 'function' && typeof source.auditTrail === 'function',
    batches: typeof source.batches === 'function',
    changePriority: typeof source.changePriority === 'function',
    children: typeof source.children === 'function',
    flowState: typeof source.flowState === 'function',
    history: typeof source.history === 'function',
    logs: typeof source.logs === 'function',
    pause: typeof source.pause === 'function' && typeof source.resume === 'function',
    promote: typeof source.promote === 'function',
    remove: typeof source.remove === 'function',
    timeline: typeof source.timeline === 'function',
    schedules: typeof source.schedules === 'function',
    workers: typeof source.workers === 'function',
    workerOrders: typeof source.quietWorkers === 'function' && typeof source.resumeWorkers === 'function',
  };
}
