import { defineKinds, JobQueue, type JobRecord, type QueueStats, type RedisClient } from '@jobs/core';
import { jobsAclRules } from '../acl.ts';
import { discoverQueues } from '../discover-queues.ts';
import { humanDuration, renderPairs, renderTable } from '../table.ts';
import type { AdminCommand } from './admin-args.ts';

/** What a command printed (as text and as JSON) and its exit code. */
export interface AdminResult {
  readonly code: 0 | 1;
  readonly text: string;
  readonly json: unknown;
}

const empty = defineKinds({});

function open(client: RedisClient, queue: string): JobQueue<unknown> {
  return new JobQueue({ redis: client, queue, kinds: empty }) as JobQueue<unknown>;
}

function statsRow(queue: string, stats: QueueStats): (string | number)[] {
  return [queue, stats.pendingDepth, stats.processingDepth, stats.delayedDepth, stats.completedDepth, stats.failedDepth, humanDuration(stats.oldestPendingAgeMs)];
}

const STATS_HEADERS = ['QUEUE', 'PENDING', 'PROCESSING', 'DELAYED', 'COMPLETED', 'FAILED', 'OLDEST PENDING'];

function oneLine(text: string | undefined, max = 60): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function jobJson(job: JobRecord): Record<string, unknown> {
  return { id: job.id, status: job.status, kind: job.kind, attempts: job.attempts, payload: job.payload, result: job.result, lastError: job.lastError, fields: job.fields };
}

/** `jobs acl <user>`: the line to run in Redis for a user limited to `queues` (needs no Redis). */
export function aclResult(user: string, queues: readonly string[]): AdminResult {
  const rules = jobsAclRules(queues);
  return { code: 0, text: `ACL SETUSER ${user} on >PASSWORD ${rules.join(' ')}`, json: { user, rules } };
}

/** Runs one admin command against Redis. */
export async function runAdminCommand(command: AdminCommand, client: RedisClient): Promise<AdminResult> {
  switch (command.name) {
    case 'help':
      return { code: 0, text: '', json: null };
    case 'acl':
      return aclResult(command.user, command.queues);
    case 'queues':
    case 'stats': {
      const names = command.name === 'stats' && command.queue !== undefined ? [command.queue] : await discoverQueues(client);
      const all = await Promise.all(names.map(async (name) => ({ queue: name, stats: await open(client, name).stats() })));
      if (command.name === 'stats' && command.queue !== undefined) {
        const stats = all[0]?.stats as QueueStats;
        const pairs = Object.entries(stats).filter(([key]) => key !== 'nowMs').map(([key, value]) => [key, key === 'oldestPendingAgeMs' ? humanDuration(value as number | null) : (value as number)] as const);
        return { code: 0, text: renderPairs(pairs), json: { queue: command.queue, ...stats } };
      }
      if (all.length === 0) return { code: 0, text: 'no queues found', json: [] };
      return { code: 0, text: renderTable(STATS_HEADERS, all.map(({ queue, stats }) => statsRow(queue, stats))), json: all.map(({ queue, stats }) => ({ queue, ...stats })) };
    }
    case 'ls': {
      const jobs = await open(client, command.queue).list(command.state, { limit: command.limit, offset: command.offset });
      if (jobs.length === 0) return { code: 0, text: `no ${command.state} jobs in ${command.queue}`, json: [] };
      const rows = jobs.map((job) => [job.id, job.status, job.kind ?? '?', job.attempts, oneLine(job.lastError ?? (job.rawPayload ?? ''))]);
      return { code: 0, text: renderTable(['ID', 'STATUS', 'KIND', 'ATTEMPTS', 'LAST ERROR / PAYLOAD'], rows), json: jobs.map(jobJson) };
    }
    case 'show': {
      const job = await open(client, command.queue).getJob(command.id);
      if (!job) return { code: 1, text: `no job ${command.id} in ${command.queue}`, json: { error: 'not_found', id: command.id } };
      return { code: 0, text: renderPairs(Object.entries(job.fields).sort(([a], [b]) => a.localeCompare(b))), json: jobJson(job) };
    }
    case 'retry': {
      const outcomes = await open(client, command.queue).retry(command.ids);
      const lines = command.ids.map((id, index) => (outcomes[index] === true ? `retried ${id}` : `not retried ${id}: it is ${String(outcomes[index])}, not failed`));
      const ok = outcomes.every((outcome) => outcome === true);
      return { code: ok ? 0 : 1, text: lines.join('\n'), json: command.ids.map((id, index) => ({ id, retried: outcomes[index] === true, ...(outcomes[index] !== true && { status: outcomes[index] }) })) };
    }
    case 'retry-all': {
      const queue = open(client, command.queue);
      // Bounded by what is in the list now, so jobs failing meanwhile cannot keep it going forever.
      let budget = (await queue.stats()).failedDepth;
      const retried: string[] = [];
      while (budget > 0) {
        const round = await queue.retryFailed({ batch: Math.min(500, budget) });
        retried.push(...round.retried);
        budget -= Math.min(500, budget);
        if (!round.more) break;
      }
      return { code: 0, text: `retried ${retried.length} failed job(s) of ${command.queue}`, json: { retried } };
    }
    case 'cancel': {
      const outcome = await open(client, command.queue).cancel(command.id);
      if (outcome.cancelled) return { code: 0, text: `cancelled ${command.id}`, json: { id: command.id, cancelled: true } };
      const why = outcome.status === 'not_found' ? 'there is no such job' : `it is ${outcome.status}`;
      return { code: 1, text: `cannot cancel ${command.id}: ${why}`, json: { id: command.id, cancelled: false, status: outcome.status } };
    }
    case 'purge': {
      const deleted = await open(client, command.queue).purge();
      return { code: 0, text: `purged ${command.queue}: deleted ${deleted} key(s)`, json: { queue: command.queue, deletedKeys: deleted } };
    }
  }
}
