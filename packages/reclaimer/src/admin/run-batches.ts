import { defineKinds, Queue, type BatchState, type RedisClient } from '@jobs/core';
import { recordedPartitions } from '@jobs/core/internal';
import { renderTable } from '../table.ts';
import type { AdminResult } from './run-admin.ts';

/** `jobsctl batches -q <queue> [--limit n]`: the queue's batches, newest first. */
export interface BatchesCommand {
  readonly name: 'batches';
  readonly queue: string;
  readonly limit: number;
}

const HEADERS = ['ID', 'STATE', 'TOTAL', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'PENDING', 'CALLBACKS', 'CREATED'];

function stateOf(batch: BatchState): string {
  if (batch.finished) return 'finished';
  return batch.sealed ? 'sealed' : 'open';
}

/** Each callback it has, with the id of its job once enqueued. */
function callbacksCell(batch: BatchState): string {
  const entries = Object.entries(batch.callbacks);
  if (entries.length === 0) return '-';
  return entries.map(([name, job]) => `${name}${job === null ? '' : ' (fired)'}`).join(', ');
}

function row(batch: BatchState): string[] {
  return [batch.id, stateOf(batch), String(batch.total), String(batch.succeeded), String(batch.failed), String(batch.cancelled), String(batch.pending), callbacksCell(batch), new Date(batch.createdAtMs).toISOString()];
}

/** Lists the batches of the queue (of every partition of a partitioned one). */
export async function runBatchesCommand(command: BatchesCommand, client: RedisClient): Promise<AdminResult> {
  const partitions = await recordedPartitions(client, command.queue);
  const queue = new Queue({ redis: client, queue: command.queue, kinds: defineKinds({}), partitions });
  const batches = await queue.batches({ limit: command.limit });
  if (batches.length === 0) return { code: 0, text: `no batches in ${command.queue}`, json: [] };
  return { code: 0, text: renderTable(HEADERS, batches.map(row)), json: batches };
}
