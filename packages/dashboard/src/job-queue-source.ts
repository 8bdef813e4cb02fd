import { defineKinds, Queue, type LogEvent, type RedisClient, type ScheduleRecord } from '@jobs/core';
import { registryHolderOf } from '@jobs/core/internal';
import { HttpError } from './http-io.ts';
import { shownLimits } from './shown-limits.ts';
import type { ChildInfo, DashboardDataSource, PauseTarget, ScheduleInfo, ShownLimits, TimelineEntry } from './data-source.ts';

/** What the dashboard uses of a `Queue`: any queue fits, whatever its kinds. */
export type DashboardQueue = Pick<Queue<unknown>, 'name' | 'client' | 'stats' | 'list' | 'getJob' | 'retry' | 'retryFailed' | 'cancel' | 'purge' | 'pause' | 'resume' | 'timeline'> & {
  readonly kinds: { readonly names: readonly string[]; has(kind: unknown): boolean };
  readonly schedules: { list(options?: { offset?: number; limit?: number }): Promise<ScheduleRecord[]> };
  /** Its live workers (a `Queue` has them): without it the page says nothing of workers. */
  readonly workers?: Queue<unknown>['workers'];
} & Partial<Pick<Queue<unknown>, 'why' | 'limits' | 'promote' | 'changePriority' | 'remove' | 'attempts' | 'logs' | 'history' | 'recordAudit' | 'auditTrail' | 'children' | 'batches' | 'quietWorkers' | 'resumeWorkers'>>;

/** Options of {@link jobQueueSource}. */
export interface JobQueueSourceOptions {
  /**
   * The queue's limits (rate limits, concurrency caps...) to show beside its paused state, read
   * on each overview. Default: what the queue's `limits()` reads from Redis (its rates, caps and
   * pushbacks), when it has that method.
   */
  limits?: (queue: DashboardQueue) => Promise<ShownLimits | undefined>;
}

/** `limits`, or undefined when it has none (nothing to show). */
function nonEmpty(limits: ShownLimits): ShownLimits | undefined {
  return Object.keys(limits).length > 0 ? limits : undefined;
}

/** The most dead-lettered jobs one redrive call moves (one script call each). */
const REDRIVE_BATCH = 500;

/** The most schedules the panel lists (one script call). */
const SCHEDULES_SHOWN = 200;

/** A schedule's timing as the panel shows it: the cron pattern (and zone), or the interval. */
function timingOf(record: ScheduleRecord): string {
  if (record.cron !== undefined) return record.tz ? `${record.cron} (${record.tz})` : record.cron;
  const ms = record.every ?? 0;
  if (ms % 3_600_000 === 0) return `every ${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `every ${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `every ${ms / 1_000} s`;
  return `every ${ms} ms`;
}

/** A log event as the timeline shows it: the attempt, who made the change, the error code. */
function timelineEntry(event: LogEvent): TimelineEntry {
  const detail = [event.attempt === null ? '' : `attempt ${event.attempt}`, event.worker ? `by ${event.worker}` : '', event.code ? `code ${event.code}` : ''].filter(Boolean).join(', ');
  return { atMs: event.atMs, event: event.event, ...(detail && { detail }) };
}

function scheduleInfo(record: ScheduleRecord): ScheduleInfo {
  return { name: record.id, kind: record.kind, every: timingOf(record), nextRunAtMs: record.nextRunAt, status: record.status };
}

/**
 * Runs a kind's pause or resume. A queue opened with its kinds checks the name (a typo is a
 * `JOBS_INVALID_ARGUMENT`), except on resume: a kind paused by another service stays resumable.
 * A queue opened without kinds (the daemon's) acts through a handle that knows just this kind.
 */
async function onKind(queue: DashboardQueue, kind: string, action: 'pause' | 'resume', by: string | undefined): Promise<void> {
  const options = action === 'pause' && by !== undefined ? { kind, by } : { kind };
  if (queue.kinds.has(kind) || (action === 'pause' && queue.kinds.names.length > 0)) {
    await queue[action](options);
    return;
  }
  // defineKinds checks the name's form; the schema is never used: this handle enqueues nothing.
  const handle = new Queue({ redis: queue.client, queue: queue.name, kinds: defineKinds({ [kind]: { schema: { type: 'object' } } }) });
  try {
    await handle[action](options);
  } finally {
    await handle.close();
  }
}

/**
 * A {@link DashboardDataSource} over `Queue`s: the queues given, or those a function returns
 * when asked (for a set that changes, as the daemon's does). It has the `flowState` (admission), pause and
 * schedules capabilities (with the limits its queues' `limits()` read, or `options.limits`), timelines: a job's
 * events from its queue's event log (none when the queue keeps no log), live workers, a flow's
 * children, why a job is not running, a job's attempts and log lines, the metrics history (empty
 * while the queues' `metricsHistory` is off), the audit trail and the batches.
 */
export function jobQueueSource(queues: readonly DashboardQueue[] | (() => readonly DashboardQueue[]), options: JobQueueSourceOptions = {}): DashboardDataSource {
  const all = typeof queues === 'function' ? queues : () => queues;
  const readLimits = options.limits ?? (async (queue: DashboardQueue) => (queue.limits ? nonEmpty(shownLimits(await queue.limits())) : undefined));
  const byName = (name: string): DashboardQueue => {
    const queue = all().find((candidate) => candidate.name === name);
    // The routes check the name against queueNames() first; this guards a set that just changed.
    if (!queue) throw new Error(`no queue ${JSON.stringify(name)}`);
    return queue;
  };
  const holderOf = (name: string): string => registryHolderOf(name, new Set(all().map((queue) => queue.name)));
  const pauseAction = (action: 'pause' | 'resume') => async (name: string, target: PauseTarget = {}) => {
    const queue = byName(name);
    if (target.kind === undefined) await queue[action](action === 'pause' && target.by !== undefined ? { by: target.by } : {});
    else await onKind(queue, target.kind, action, target.by);
  };
  /** The queue's verb `verb`: a `Queue` has it; an object that lacks it answers as an error. */
  const verbOf = <V extends 'promote' | 'changePriority' | 'remove'>(name: string, verb: V): NonNullable<DashboardQueue[V]> => {
    const queue = byName(name);
    const run = queue[verb];
    if (typeof run !== 'function') throw new Error(`queue ${JSON.stringify(name)} has no ${verb}`);
    return run.bind(queue) as NonNullable<DashboardQueue[V]>;
  };
  return {
    queueNames: () => all().map((queue) => queue.name).sort(),
    stats: (name) => byName(name).stats(),
    list: (name, state, page) => byName(name).list(state, page),
    getJob: (name, id) => byName(name).getJob(id),
    retry: async (name, id) => (await byName(name).retry([id]))[0] ?? 'not_found',
    retryFailed: async (name, max) => {
      const queue = byName(name);
      let left = max;
      let redriven = 0;
      while (left > 0) {
        const batch = Math.min(REDRIVE_BATCH, left);
        const round = await queue.retryFailed({ batch });
        redriven += round.retried.length;
        left -= batch;
        if (!round.more) break;
      }
      return redriven;
    },
    cancel: (name, id) => byName(name).cancel(id),
    promote: (name, id) => verbOf(name, 'promote')(id),
    changePriority: (name, id, priority) => verbOf(name, 'changePriority')(id, priority),
    remove: (name, id) => verbOf(name, 'remove')(id),
    purge: (name) => byName(name).purge(),
    // The paused state is part of the stats snapshot: the overview's own is used when given.
    flowState: async (name, snapshot) => {
      const queue = byName(name);
      const [stats, limits] = await Promise.all([snapshot ?? queue.stats(), readLimits(queue)]);
      return { paused: stats.paused, pausedKinds: stats.pausedKinds, kinds: queue.kinds.names, ...(limits && { limits }) };
    },
    pause: pauseAction('pause'),
    resume: pauseAction('resume'),
    why: async (name, id) => {
      const queue = byName(name);
      return queue.why ? queue.why(id) : null;
    },
    attempts: async (name, id) => {
      const queue = byName(name);
      return queue.attempts ? queue.attempts(id) : null;
    },
    logs: async (name, id, limit) => {
      const queue = byName(name);
      return queue.logs ? queue.logs(id, { limit }) : null;
    },
    history: async (name, query) => {
      const queue = byName(name);
      if (!queue.history) throw new HttpError(404, 'no_capability', `queue ${name} has no metrics history reader`);
      return queue.history({ since: query.sinceMs, ...(query.kind !== undefined && { kind: query.kind }) });
    },
    children: async (name, id) => {
      const queue = byName(name);
      if (!queue.children) return [];
      return Object.entries(await queue.children(id)).map(([child, entry]): ChildInfo => ({ id: child, kind: entry.kind, status: entry.status, ...('error' in entry && { error: entry.error }) }));
    },
    timeline: async (name, id) => ((await byName(name).timeline(id))?.events ?? []).map(timelineEntry),
    schedules: async (name) => (await byName(name).schedules.list({ limit: SCHEDULES_SHOWN })).map(scheduleInfo),
    // A partition of a partitioned queue shown too: its workers are in partition 0's registry.
    workers: async (name) => (await byName(holderOf(name)).workers?.()) ?? [],
    // Orders to workers go through that registry too.
    quietWorkers: async (name, target) => {
      const queue = byName(holderOf(name));
      if (!queue.quietWorkers) throw new HttpError(404, 'no_capability', `queue ${name} cannot tell its workers`);
      return queue.quietWorkers(target);
    },
    resumeWorkers: async (name, target) => {
      const queue = byName(holderOf(name));
      if (!queue.resumeWorkers) throw new HttpError(404, 'no_capability', `queue ${name} cannot tell its workers`);
      return queue.resumeWorkers(target);
    },
    // Likewise the audit trail: a partitioned queue keeps it in partition 0 (entries name the partition acted on).
    recordAudit: async (name, record, { maxEntries }) => byName(holderOf(name)).recordAudit?.(record, { maxEntries }),
    auditTrail: async (name, page) => (await byName(holderOf(name)).auditTrail?.(page)) ?? { entries: [], next: null },
    // Core lists up to `limit` per partition: the newest `limit` of them all are shown.
    batches: async (name, { limit }) => ((await byName(name).batches?.({ limit })) ?? []).slice(0, limit),
  };
}

const empty = defineKinds({});

/**
 * The queues named by `names()`, each opened once on `client` (a queue that needs no kinds: the
 * dashboard reads and redrives, it never validates payloads).
 */
export function namedQueues(client: RedisClient, names: () => readonly string[]): () => Queue<unknown>[] {
  const open = new Map<string, Queue<unknown>>();
  return () =>
    names().map((name) => {
      let queue = open.get(name);
      if (!queue) {
        queue = new Queue({ redis: client, queue: name, kinds: empty }) as Queue<unknown>;
        open.set(name, queue);
      }
      return queue;
    });
}
