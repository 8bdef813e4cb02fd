import { defineKinds, Queue, queueKeys, type JobRecord, type KindLimits, type LimitsState, type QueueStats, type RateLimit, type RedisClient } from '@jobs/core';
import { partitionNames, recordedPartitions } from '@jobs/core/internal';
import { jobsAclRules, jobsOperatorAclRules } from '../acl.ts';
import { discoverQueues } from '../discover-queues.ts';
import { humanDuration, renderPairs, renderTable } from '../table.ts';
import type { AdminCommand } from './admin-program.ts';
import { eventLine, readEvents } from './event-lines.ts';
import { partitionQueues } from './partition-queues.ts';
import { runAuditCommand } from './run-audit.ts';
import { runJobVerb } from './job-verbs.ts';
import { runPauseCommand } from './run-pause.ts';
import { runFunctionsCommand } from './run-functions.ts';
import { runHistoryCommand } from './run-history.ts';
import { runSchedulesCommand } from './run-schedules.ts';
import { runWorkersCommand } from './run-workers.ts';
import { runWorkerOrderCommand } from './run-worker-orders.ts';
import { runBatchesCommand } from './run-batches.ts';
import { runDedupeCommand } from './run-dedupe.ts';
import { whyText } from '@jobs/core/internal';

/** What a command printed (as text and as JSON) and its exit code (2: an argument Redis refused, such as a bad cron pattern). */
export interface AdminResult {
  readonly code: 0 | 1 | 2;
  readonly text: string;
  readonly json: unknown;
}

const empty = defineKinds({});

function open(client: RedisClient, queue: string): Queue<unknown> {
  return new Queue({ redis: client, queue, kinds: empty }) as Queue<unknown>;
}

/**
 * A queue by the name an operator gives: a partitioned queue's name stands for all its
 * partitions (each an ordinary queue `NAME:p<i>`), routed by id where an id is given. When the
 * queue keeps an event log (its stream exists), what the CLI changes (retries, cancels) is logged too.
 */
export async function openNamed(client: RedisClient, queue: string): Promise<Queue<unknown>> {
  const partitions = await recordedPartitions(client, queue);
  const first = partitions > 1 ? (partitionNames(queue, partitions)[0] as string) : queue;
  const eventLog = (await client.exists(queueKeys(first).log)) === 1;
  return new Queue({ redis: client, queue, kinds: empty, partitions, eventLog, workerId: 'jobsctl' }) as Queue<unknown>;
}

/** The partitions of a queue opened by {@link openNamed}, each as a queue of its own. */
function partitionsOf(queue: Queue<unknown>): readonly Queue<unknown>[] {
  return partitionQueues(queue, { eventLog: queue.options.eventLog !== false, workerId: 'jobsctl' });
}

/** The partition that holds `id` (by its suffix), or every partition for an id made elsewhere. */
function holders(queue: Queue<unknown>, partitions: readonly Queue<unknown>[], id: string): readonly Queue<unknown>[] {
  const partition = queue.partitionOf(id);
  const index = partition === undefined ? -1 : queue.partitions.indexOf(partition);
  return index < 0 ? partitions : [partitions[index] as Queue<unknown>];
}

/**
 * A queue's stats as the CLI shows them. `visibilityMs` is left out: it is the CLI's own default,
 * not the queue's (a queue keeps no settings in Redis; each job carries its own).
 */
function shownStats(stats: QueueStats): Omit<QueueStats, 'visibilityMs'> {
  const { visibilityMs: _visibilityMs, ...rest } = stats;
  return rest;
}

/** An epoch-ms time as ISO 8601 (UTC). */
function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** A job hash field for people: `*_at_ms` times (and `0`, the recipe's "never") as ISO 8601. */
function shownField(field: string, value: string): [string, string] {
  const match = /^(.*_at)_ms$/.exec(field);
  const ms = Number(value);
  if (!match || value === '' || !Number.isFinite(ms)) return [field, value];
  return [match[1] as string, ms > 0 ? isoTime(ms) : '-'];
}

/**
 * A queue's limits on one line: `rate 100/1000ms spread burst 2, concurrency 50; email: rate 5/1000ms, concurrency 2;
 * held: webhook until <time>`.
 */
function limitsText(limits: LimitsState): string {
  const rate = (r: RateLimit): string => `rate ${r.max}/${r.windowMs}ms${r.spread ? ` spread burst ${r.burst ?? 1}` : ''}`;
  const one = (l: KindLimits): string => [l.rate && rate(l.rate), l.concurrency !== undefined && `concurrency ${l.concurrency}`].filter(Boolean).join(', ');
  const parts: string[] = [];
  if (limits.rate || limits.concurrency !== undefined) parts.push(one({ ...(limits.rate ? { rate: limits.rate } : {}), ...(limits.concurrency !== undefined ? { concurrency: limits.concurrency } : {}) }));
  for (const [kind, l] of Object.entries(limits.kinds ?? {})) parts.push(`${kind}: ${one(l)}`);
  if (limits.groups) parts.push(`groups: ${one(limits.groups)}`);
  const held = Object.entries(limits.limitedUntil).map(([kind, until]) => `${kind} until ${isoTime(until)}`);
  if (held.length > 0) parts.push(`held: ${held.join(', ')}`);
  return parts.length > 0 ? parts.join('; ') : '-';
}

/** The order `stats` shows a queue in: its admission state (pauses), then where its jobs are, then its counters. */
const STATS_ORDER: readonly (keyof QueueStats)[] = [
  'paused', 'pausedKinds',
  'pendingDepth', 'prioritizedDepth', 'parkedDepth', 'groupedDepth', 'waitingDepth', 'processingDepth', 'delayedDepth', 'waitingChildrenDepth', 'completedDepth', 'failedDepth', 'groupsWaiting', 'oldestPendingAgeMs', 'limits',
  'enqueuedTotal', 'completedTotal', 'failedTotal', 'expiredTotal', 'rateLimitedTotal', 'retriedTotal', 'reclaimedTotal', 'cancelledTotal', 'removedTotal', 'redrivenTotal', 'releasedTotal', 'snoozedTotal', 'handedOffTotal', 'droppedTotal', 'failedDroppedTotal',
  'nowMs',
];

/**
 * `stats` of one queue for people, a line a field in {@link STATS_ORDER} (fields added to
 * QueueStats later come last): the snapshot's time in ISO 8601, durations short, kinds joined,
 * and `paused` as yes, no, or which partitions of a partitioned queue are.
 */
function statsPairs(stats: Omit<QueueStats, 'visibilityMs'>, pausedPartitions: string | undefined): [string, string | number][] {
  const entries = Object.entries(stats) as [keyof QueueStats, unknown][];
  const rank = (key: keyof QueueStats): number => (STATS_ORDER.includes(key) ? STATS_ORDER.indexOf(key) : STATS_ORDER.length - 1);
  return entries
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([key, value]): [string, string | number] => {
      if (key === 'nowMs') return ['at', isoTime(value as number)];
      if (key === 'oldestPendingAgeMs') return [key, humanDuration(value as number | null)];
      if (key === 'paused') return [key, pausedPartitions ?? (value ? 'yes: workers start none of its jobs (jobsctl resume)' : 'no')];
      if (key === 'limits') return [key, limitsText(value as LimitsState)];
      if (key === 'pausedKinds') return [key, (value as string[]).length > 0 ? (value as string[]).join(', ') : '-'];
      if (Array.isArray(value)) return [key, value.length > 0 ? value.join(', ') : '-'];
      if (typeof value === 'boolean') return [key, value ? 'yes' : 'no'];
      if (value === null) return [key, 'not counted: more than 10,000 groups wait'];
      return [key, value as number];
    });
}

/** A partitioned queue paused in some partitions only (a pause cut short): which, for `stats`. */
async function partlyPaused(queue: Queue<unknown>): Promise<{ text: string; count: number } | undefined> {
  const paused = (await Promise.all(partitionsOf(queue).map(async (partition, index) => ((await partition.stats()).paused ? index : -1)))).filter((index) => index >= 0);
  if (paused.length === queue.partitions.length) return undefined;
  return { text: `partly: partitions ${paused.join(', ')} of ${queue.partitions.length} (run jobsctl pause or resume again)`, count: paused.length };
}

/** The `PAUSED` cell of a queue in the table of every queue. */
function pausedCell(stats: QueueStats): string {
  if (stats.paused) return 'yes';
  return stats.pausedKinds.length > 0 ? `kinds: ${stats.pausedKinds.join(', ')}` : 'no';
}

function statsRow(queue: string, stats: QueueStats): (string | number)[] {
  return [queue, stats.pendingDepth, stats.processingDepth, stats.delayedDepth, stats.completedDepth, stats.failedDepth, humanDuration(stats.oldestPendingAgeMs), stats.prioritizedDepth, stats.parkedDepth, pausedCell(stats)];
}

const STATS_HEADERS = ['QUEUE', 'PENDING', 'PROCESSING', 'DELAYED', 'COMPLETED', 'FAILED', 'OLDEST PENDING', 'PRIORITIZED', 'PARKED', 'PAUSED'];

function oneLine(text: string | undefined, max = 60): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function jobJson(job: JobRecord): Record<string, unknown> {
  return { id: job.id, status: job.status, kind: job.kind, attempts: job.attempts, payload: job.payload, result: job.result, lastError: job.lastError, fields: job.fields };
}

/** `jobsctl acl <user>`: the line to run in Redis for a user limited to `queues`, or for the operator's user (needs no Redis). */
export function aclResult(user: string, queues: readonly string[], partitions = 1, operator = false): AdminResult {
  const rules = operator ? jobsOperatorAclRules() : jobsAclRules(queues, { partitions });
  return { code: 0, text: `ACL SETUSER ${user} on >PASSWORD ${rules.join(' ')}`, json: { user, rules } };
}

/** Runs one admin command against Redis (all but `export-failed`, which streams its output). */
export async function runAdminCommand(command: Exclude<AdminCommand, { name: 'export-failed' }>, client: RedisClient): Promise<AdminResult> {
  switch (command.name) {
    case 'acl':
      return aclResult(command.user, command.queues, command.partitions, command.operator);
    case 'audit':
      return runAuditCommand(command, client);
    case 'functions':
      return runFunctionsCommand(command, client);
    case 'pause':
    case 'resume':
      return runPauseCommand(command, client);
    case 'promote':
    case 'priority':
    case 'remove':
      return runJobVerb(command, client, openNamed);
    case 'schedules':
      return runSchedulesCommand(command, client);
    case 'workers':
      return runWorkersCommand(command, client);
    case 'quiet':
    case 'resume-workers':
    case 'scale':
      return runWorkerOrderCommand(command, client);
    case 'batches':
      return runBatchesCommand(command, client);
    case 'dedupe':
      return runDedupeCommand(command, client);
    case 'history':
      return runHistoryCommand(command, client);
    case 'queues':
    case 'stats': {
      if (command.name === 'stats' && command.queue !== undefined) {
        const queue = await openNamed(client, command.queue);
        const stats = shownStats(await queue.stats());
        const partly = stats.paused && queue.partitions.length > 1 ? await partlyPaused(queue) : undefined;
        const pairs = statsPairs(stats, partly?.text);
        if (queue.partitions.length > 1) pairs.unshift(['partitions', queue.partitions.length]);
        const partitions = queue.partitions.length > 1 && { partitions: queue.partitions.length, pausedPartitions: stats.paused ? (partly?.count ?? queue.partitions.length) : 0 };
        return { code: 0, text: renderPairs(pairs), json: { queue: command.queue, ...partitions, ...stats } };
      }
      const names = await discoverQueues(client);
      const all = await Promise.all(names.map(async (name) => ({ queue: name, stats: await open(client, name).stats() })));
      if (all.length === 0) return { code: 0, text: 'no queues found', json: [] };
      return { code: 0, text: renderTable(STATS_HEADERS, all.map(({ queue, stats }) => statsRow(queue, stats))), json: all.map(({ queue, stats }) => ({ queue, ...shownStats(stats) })) };
    }
    case 'ls': {
      // A partitioned queue: the partitions' lists one after another, paged as one.
      const jobs = await (await openNamed(client, command.queue)).list(command.state, { limit: command.limit, offset: command.offset });
      if (jobs.length === 0) return { code: 0, text: `no ${command.state} jobs in ${command.queue}`, json: [] };
      const rows = jobs.map((job) => [job.id, job.status, job.kind ?? '?', job.attempts, oneLine(job.lastError ?? (job.rawPayload ?? ''))]);
      return { code: 0, text: renderTable(['ID', 'STATUS', 'KIND', 'ATTEMPTS', 'LAST ERROR / PAYLOAD'], rows), json: jobs.map(jobJson) };
    }
    case 'show': {
      const queue = await openNamed(client, command.queue);
      const job = await queue.getJob(command.id);
      if (!job) return { code: 1, text: `no job ${command.id} in ${command.queue}`, json: { error: 'not_found', id: command.id } };
      const pairs = Object.entries(job.fields).filter(([field]) => field !== 'log_ids').map(([field, value]) => shownField(field, value));
      const fields = renderPairs(pairs.sort(([a], [b]) => a.localeCompare(b)));
      const timeline = await queue.timeline(command.id);
      const events = timeline?.events ?? [];
      const trimmed = timeline && timeline.trimmed > 0 ? [`(${timeline.trimmed} older event(s) trimmed off the log)`] : [];
      const text = events.length === 0 && trimmed.length === 0 ? fields : [fields, '', 'timeline:', ...trimmed, ...events.map(eventLine)].join('\n');
      return { code: 0, text, json: { ...jobJson(job), timeline: events, timelineTrimmed: timeline?.trimmed ?? 0 } };
    }
    case 'why': {
      const answer = await (await openNamed(client, command.queue)).why(command.id);
      if (!answer) return { code: 1, text: `no job ${command.id} in ${command.queue}`, json: { error: 'not_found', id: command.id } };
      return { code: 0, text: whyText(answer), json: answer };
    }
    case 'events': {
      const queue = await openNamed(client, command.queue);
      if (command.partition !== undefined && command.partition >= queue.partitions.length) {
        return { code: 1, text: `${command.queue} has ${queue.partitions.length} partition(s)`, json: { error: 'no_such_partition' } };
      }
      const items = await readEvents(client, queue, command.partition ?? 0, command.from === '$' ? '0' : command.from, command.limit);
      if (items.length === 0) return { code: 0, text: `no events in the log of ${command.queue} after ${command.from}`, json: [] };
      return { code: 0, text: items.map(eventLine).join('\n'), json: items };
    }
    case 'retry': {
      const queue = await openNamed(client, command.queue);
      const partitions = partitionsOf(queue);
      const outcomes: (true | string)[] = [];
      for (const id of command.ids) {
        let outcome: true | string = 'not_found';
        for (const partition of holders(queue, partitions, id)) {
          const [result] = await partition.retry([id]);
          if (result !== 'not_found') {
            outcome = result as true | string;
            break;
          }
        }
        outcomes.push(outcome);
      }
      const lines = command.ids.map((id, index) => (outcomes[index] === true ? `retried ${id}` : `not retried ${id}: it is ${String(outcomes[index])}, not failed`));
      const ok = outcomes.every((outcome) => outcome === true);
      return { code: ok ? 0 : 1, text: lines.join('\n'), json: command.ids.map((id, index) => ({ id, retried: outcomes[index] === true, ...(outcomes[index] !== true && { status: outcomes[index] }) })) };
    }
    case 'retry-all': {
      const retried: string[] = [];
      for (const queue of partitionsOf(await openNamed(client, command.queue))) {
        // Bounded by what is in the list now, so jobs failing meanwhile cannot keep it going forever.
        let budget = (await queue.stats()).failedDepth;
        while (budget > 0) {
          const round = await queue.retryFailed({ batch: Math.min(500, budget) });
          retried.push(...round.retried);
          budget -= Math.min(500, budget);
          if (!round.more) break;
        }
      }
      return { code: 0, text: `retried ${retried.length} failed job(s) of ${command.queue}`, json: { retried } };
    }
    case 'cancel': {
      const outcome = await (await openNamed(client, command.queue)).cancel(command.id);
      if (outcome.cancelled) {
        const text = outcome.wasRunning ? `cancelled ${command.id} (it was running: its worker was told to stop it)` : `cancelled ${command.id}`;
        return { code: 0, text, json: { id: command.id, cancelled: true, wasRunning: outcome.wasRunning } };
      }
      const why = outcome.status === 'not_found' ? 'there is no such job' : `it is ${outcome.status}`;
      return { code: 1, text: `cannot cancel ${command.id}: ${why}`, json: { id: command.id, cancelled: false, status: outcome.status } };
    }
    case 'purge': {
      const queue = await openNamed(client, command.queue);
      let deleted = 0;
      for (const partition of partitionsOf(queue)) deleted += await partition.purge();
      // The recorded count goes last, so a purge cut short still knows the partitions.
      if (queue.partitions.length > 1) deleted += await client.del(queue.keys.partitions);
      return { code: 0, text: `purged ${command.queue}: deleted ${deleted} key(s)`, json: { queue: command.queue, deletedKeys: deleted } };
    }
  }
}
