import { Cluster, type Redis } from 'ioredis';
import { refreshSlots } from '../cluster-redirects.ts';
import { promoteScript } from '../generated/promote.ts';
import { tidyScript } from '../generated/tidy.ts';
import { JOBS_ERROR_CODES, JobsError, isJobsError } from '../errors.ts';
import { toJobsError, withRedisErrors } from '../redis-connection.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** See {@link Queue.promoteDue}. */
export async function promoteDue<P>(ctx: QueueContext<P>, batch = 1_000): Promise<{ promoted: number; nextDueMs: number | null; nowMs: number }> {
  assertWholeNumber('batch', batch, 1, 100_000);
  const argv = promoteScript.argv({ delayed: ctx.keys.delayed, pending: ctx.keys.pending, log: ctx.keys.log }, { jobPrefix: ctx.keys.jobPrefix, batch, prefix: ctx.keys.prefix, logMaxLen: ctx.logMaxLen });
  const [promoted, nextDue, now] = await ctx.scripts.run(promoteScript, argv);
  return { promoted: Number(promoted), nextDueMs: Number(nextDue) >= 0 ? Number(nextDue) : null, nowMs: Number(now) };
}

/** See {@link Queue.tidyHistory}. */
export async function tidyHistory<P>(ctx: QueueContext<P>, batch = 1_000): Promise<{ completed: number; failed: number }> {
  assertWholeNumber('batch', batch, 1, 100_000);
  const k = ctx.keys;
  // The failed ones are jobs lost to failedTtlSeconds: counted in failedDroppedTotal.
  const [completed, failed] = await ctx.scripts.runAll([
    { script: tidyScript, argv: tidyScript.argv({ list: k.completed, stats: k.stats }, { jobPrefix: k.jobPrefix, batch, droppedField: '' }) },
    { script: tidyScript, argv: tidyScript.argv({ list: k.failed, stats: k.stats }, { jobPrefix: k.jobPrefix, batch, droppedField: 'failed_dropped_total' }) },
  ]);
  return { completed: Number(completed), failed: Number(failed) };
}

/**
 * See {@link Queue.purge}. The keys go in an order that keeps what is left visible should the
 * caller die halfway: the job hashes first (the ids left in lists are then dropped by claims and
 * counted by stats until a second purge), then every list, and last the indexes through which
 * stats and lists find other lists (the admission hash, the levels and groups sets). The audit
 * trail is kept.
 */
export async function purge<P>(ctx: QueueContext<P>): Promise<number> {
  await ctx.ready();
  const k = ctx.keys;
  // A cluster client forgets a master whose connection dropped until its slot map is read again.
  if (ctx.client instanceof Cluster) await refreshSlots(ctx.client);
  const nodes: Redis[] = ctx.client instanceof Cluster ? ctx.client.nodes('master') : [ctx.client];
  const indexes = new Set([k.admission, k.priorities, k.groups]);
  // The audit trail outlives a purge: the purge is the entry its readers most need.
  const kept = new Set([...indexes, k.audit]);
  let deleted = 0;
  // The name holds no glob characters (assertQueueName), so the patterns are this queue's only.
  for (const pattern of [`${k.jobPrefix}*`, `${k.prefix}*`]) {
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, found] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000).catch((error: unknown) => {
          const mapped = toJobsError(error);
          // SCAN lists every key of the server, so a tenant's ACL user is not given it.
          if (isJobsError(mapped, JOBS_ERROR_CODES.REDIS_NOPERM)) {
            throw new JobsError(JOBS_ERROR_CODES.REDIS_NOPERM, `purging queue ${k.name} lists its keys with SCAN, which a tenant's ACL user may not run: purge with the operator's user (jobsctl acl --operator)`);
          }
          throw mapped;
        });
        cursor = next;
        const keys = found.filter((key) => !kept.has(key));
        if (keys.length > 0) deleted += await withRedisErrors(() => node.unlink(...keys));
      } while (cursor !== '0');
    }
  }
  deleted += await withRedisErrors(() => ctx.client.unlink(...indexes));
  return deleted;
}
