import { defineKinds, Queue, type RedisClient, type WorkerInfo } from '@jobs/core';
import { recordedPartitions } from '@jobs/core/internal';
import { renderTable } from '../table.ts';
import type { AdminResult } from './run-admin.ts';

/** `jobsctl workers -q <queue>`: the queue's live workers. */
export interface WorkersCommand {
  readonly name: 'workers';
  readonly queue: string;
}

/** Running job ids shown in the table at most (all of them with --json). */
const JOBS_SHOWN = 3;

/** A cell written by a worker (or by anyone with the queue's keys): control characters shown as `?`, so none reaches the terminal. */
function cell(text: string): string {
  return text.replace(/\p{Cc}/gu, '?');
}

function jobsCell(worker: WorkerInfo): string {
  if (worker.runningCount === 0) return '-';
  const shown = worker.running.slice(0, JOBS_SHOWN).map(cell).join(', ');
  const more = worker.runningCount - Math.min(worker.running.length, JOBS_SHOWN);
  return more > 0 ? `${shown} +${more}` : shown;
}

function row(worker: WorkerInfo): string[] {
  return [
    cell(worker.id),
    cell(worker.host),
    String(worker.pid),
    cell(worker.version) || '-',
    worker.kinds.map(cell).join(', ') || '-',
    `${worker.runningCount}/${worker.concurrency}`,
    worker.quiet ? 'yes' : 'no',
    jobsCell(worker),
    new Date(worker.startedAtMs).toISOString(),
    new Date(worker.lastSeenMs).toISOString(),
  ];
}

const HEADERS = ['ID', 'HOST', 'PID', 'VERSION', 'KINDS', 'RUNNING', 'QUIET', 'JOBS', 'STARTED', 'LAST SEEN'];

/** Lists the live workers of the queue (a partitioned queue's, from partition 0's registry). */
export async function runWorkersCommand(command: WorkersCommand, client: RedisClient): Promise<AdminResult> {
  const partitions = await recordedPartitions(client, command.queue);
  const queue = new Queue({ redis: client, queue: command.queue, kinds: defineKinds({}), partitions });
  const workers = await queue.workers();
  if (workers.length === 0) return { code: 0, text: `no live workers in ${command.queue}`, json: [] };
  return { code: 0, text: renderTable(HEADERS, workers.map(row)), json: workers };
}
