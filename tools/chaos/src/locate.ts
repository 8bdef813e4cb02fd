import type { Redis } from 'ioredis';

/** Where a job stands: the fields of its hash that say so, and every list or sorted set holding its id. */
export interface JobWhereabouts {
  readonly id: string;
  readonly fields: Readonly<Record<string, string>>;
  /** Keys of the queue (lists and sorted sets) whose members include the id. */
  readonly heldBy: readonly string[];
  /** The job's entries in the queue's event log (its timeline), oldest first: event, attempt, worker, code. */
  readonly timeline: readonly string[];
}

const FIELDS = ['status', 'kind', 'group', 'attempts', 'claim_token', 'lease_expires_at_ms', 'enqueued_at_ms', 'claimed_at_ms', 'slots', 'last_error'] as const;

/**
 * Looks up jobs that the checks found in no final state: their hash, and which of the queue's
 * lists and sorted sets hold them (scanned, as the queue is small once drained). Read-only; for
 * the evidence of a failed run.
 */
export async function locateJobs(client: Redis, prefix: string, ids: readonly string[]): Promise<JobWhereabouts[]> {
  if (ids.length === 0) return [];
  const containers: { key: string; type: string }[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    cursor = next;
    for (const key of keys) {
      if (key.startsWith(`${prefix}job:`) || key.startsWith(`${prefix}idem:`)) continue;
      const type = await client.type(key);
      if (type === 'list' || type === 'zset') containers.push({ key, type });
    }
  } while (cursor !== '0');
  const found: JobWhereabouts[] = [];
  for (const id of ids) {
    const values = await client.hmget(`${prefix}job:${id}`, ...FIELDS);
    const fields: Record<string, string> = {};
    FIELDS.forEach((field, index) => {
      const value = values[index];
      if (value !== null && value !== undefined) fields[field] = value;
    });
    const heldBy: string[] = [];
    for (const { key, type } of containers) {
      const member = type === 'list' ? await client.lpos(key, id) : await client.zscore(key, id);
      if (member !== null) heldBy.push(key.slice(prefix.length));
    }
    const timeline: string[] = [];
    for (const entry of (await client.hget(`${prefix}job:${id}`, 'log_ids'))?.split(' ') ?? []) {
      const [[entryId, values] = ['', []]] = await client.xrange(`${prefix}log`, entry, entry);
      const at: Record<string, string> = {};
      for (let i = 0; i + 1 < values.length; i += 2) at[values[i] as string] = values[i + 1] as string;
      if (entryId !== '') timeline.push(`${entryId.split('-')[0] ?? ''} ${at.event ?? ''} #${at.attempt ?? ''} ${at.worker ?? ''} ${at.code ?? ''}`.trim());
    }
    found.push({ id, fields, heldBy, timeline });
  }
  return found;
}
