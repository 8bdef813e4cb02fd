import { parseLogEntry, queueKeys, type LogItem, type Queue, type RedisClient } from '@jobs/core';

/** One event-log item as a line of `jobs events` and `jobs show`: id, time, job, event, attempt, worker, code. */
export function eventLine(item: LogItem): string {
  if (item.type === 'gap') return `-- gap: events after ${item.after} through ${item.through} were trimmed off the capped log before they were read`;
  const parts = [item.id, new Date(item.atMs).toISOString(), item.jobId, item.event.padEnd(9), `#${item.attempt ?? '?'}`];
  if (item.worker) parts.push(`by ${item.worker}`);
  if (item.code) parts.push(`code ${item.code}`);
  return parts.join('  ');
}

/** The log stream of `queue`'s partition `partition` (0 for a plain queue). */
function logKey(queue: Queue<unknown>, partition: number): string {
  return (queue.partitions[partition] ?? queue.partitions[0])?.keys.log ?? queueKeys(queue.name).log;
}

/** Up to `limit` entries of the log after `from` ('0': from the oldest kept), oldest first. */
export async function readEvents(client: RedisClient, queue: Queue<unknown>, partition: number, from: string, limit: number): Promise<LogItem[]> {
  const start = from === '0' ? '-' : `(${from}`;
  const raw = await client.xrange(logKey(queue, partition), start, '+', 'COUNT', limit);
  return raw.map(([id, fields]) => parseLogEntry(id, fields));
}

/** Follows the log until `signal` aborts, writing a line (or a JSON line) per item. */
export async function followEvents(queue: Queue<unknown>, options: { from: string; partition: number | undefined; json: boolean }, write: (line: string) => void, signal: AbortSignal): Promise<void> {
  const follower = await queue.events({ from: options.from, signal, ...(options.partition !== undefined && { partition: options.partition }) });
  for await (const item of follower) write(options.json ? JSON.stringify(item) : eventLine(item));
}
