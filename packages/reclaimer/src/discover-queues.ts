import { isJobsError, JOBS_ERROR_CODES, JobsError, QUEUE_NAME_PATTERN, queueKeys, type RedisClient } from '@jobs/core';
import { toJobsError } from '@jobs/core/internal';
import { Cluster, type Redis } from 'ioredis';

// Keys that only a live queue has: its lists and sets, its counters, or its live workers' registry.
const MARKERS = ['pending', 'processing', 'delayed', 'leases', 'stats', 'failed', 'workers'] as const;
const KEY = /^queue:\{([^}]+)\}:([a-z-]+)$/;
const PATTERN = 'queue:{*}:*';

/** A cluster's masters. A client that has not read the slot map yet knows none: wait for it. */
async function mastersOf(cluster: Cluster): Promise<Redis[]> {
  // A command waits for the slot map (and fails after the command timeout if the cluster stays
  // away); SCAN is one that discovery needs the permission for anyway.
  if (cluster.status !== 'ready') await cluster.scan('0', 'MATCH', PATTERN, 'COUNT', 1);
  return cluster.nodes('master');
}

/**
 * The names of the queues in Redis, found with SCAN (on every master of a cluster) by the keys
 * that a queue keeps: `queue:{NAME}:pending`, `:processing`, `:delayed`, `:leases`, `:stats`,
 * `:failed`, `:workers` (a queue whose workers run before its first job). Recipe queues started with a hash-tagged name are found too. Sorted. SCAN lists
 * every key of the server, so a tenant's ACL user may not run it: then this rejects with
 * `JOBS_REDIS_NOPERM`, saying to name the queues or to use the operator's user.
 */
export async function discoverQueues(client: RedisClient): Promise<string[]> {
  try {
    return await scanForQueues(client);
  } catch (error) {
    const mapped = toJobsError(error);
    if (!(isJobsError(mapped, JOBS_ERROR_CODES.REDIS_NOPERM) && /scan/i.test(mapped.message))) throw mapped;
    throw new JobsError(
      JOBS_ERROR_CODES.REDIS_NOPERM,
      "finding the queues takes SCAN, which lists every key of the server and so is not a tenant's: name the queues (--queue, or queues: [...]), or use the operator's user (jobsctl acl --operator)",
    );
  }
}

async function scanForQueues(client: RedisClient): Promise<string[]> {
  const nodes: Redis[] = client instanceof Cluster ? await mastersOf(client) : [client];
  const names = new Set<string>();
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', PATTERN, 'COUNT', 1_000);
      cursor = next;
      for (const key of keys) {
        const match = KEY.exec(key);
        if (match && (MARKERS as readonly string[]).includes(match[2] as string) && QUEUE_NAME_PATTERN.test(match[1] as string)) names.add(match[1] as string);
      }
    } while (cursor !== '0');
  }
  return [...names].sort();
}

/**
 * Whether queue `name` is in Redis: one of the keys a live queue keeps, or the partition count
 * of a partitioned queue. One EXISTS call (a queue's keys share a slot), no SCAN.
 */
export async function queueExists(client: RedisClient, name: string): Promise<boolean> {
  const keys = queueKeys(name);
  const markers = MARKERS.map((marker) => keys[marker]);
  return (await client.exists(...markers, keys.partitions)) > 0;
}
