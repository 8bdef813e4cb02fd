import { once } from 'node:events';
import type { Queue, JobRecord } from '@jobs/core';

/** Jobs read per call: one page of the failed list with their hashes. */
const PAGE = 500;

/** One dead letter as `jobsctl export-failed` writes it (times in epoch ms, as stored). */
export function failedJobLine(queue: string, job: JobRecord): string {
  return JSON.stringify({
    queue,
    id: job.id,
    kind: job.kind ?? null,
    status: job.status,
    attempts: job.attempts,
    max_attempts: job.maxAttempts ?? null,
    payload: job.payload ?? job.rawPayload ?? null,
    last_error: job.lastError ?? null,
    enqueued_at_ms: job.enqueuedAtMs ?? null,
    claimed_at_ms: job.claimedAtMs ?? null,
    failed_at_ms: job.failedAtMs ?? null,
    last_error_at_ms: job.lastErrorAtMs ?? null,
    fields: job.fields,
  });
}

/** Writes text, waiting when the stream asks to (a slow disk, a pipe to gzip). */
async function writeLine(stream: NodeJS.WritableStream, line: string): Promise<void> {
  if (!stream.write(`${line}\n`)) await once(stream, 'drain');
}

/**
 * Writes every job in the failed lists of `partitions` (one queue, or a partitioned queue's
 * partitions) to `stream` as JSON lines, newest first, a page at a time: never the whole list in
 * memory. Jobs failing meanwhile push the list down; an id seen twice is written once. Resolves
 * with the count written.
 */
export async function exportFailed(name: string, partitions: readonly Queue<unknown>[], stream: NodeJS.WritableStream): Promise<number> {
  const seen = new Set<string>();
  for (const partition of partitions) {
    for (let offset = 0; offset < (await partition.client.llen(partition.keys.failed)); offset += PAGE) {
      for (const job of await partition.list('failed', { offset, limit: PAGE })) {
        if (seen.has(job.id)) continue;
        seen.add(job.id);
        await writeLine(stream, failedJobLine(name, job));
      }
    }
  }
  return seen.size;
}
