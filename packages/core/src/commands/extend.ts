import { JobCancelledError, LostClaimError } from '../errors.ts';
import { CLAIM_CANCELLED } from '../generated/constants.ts';
import { extendScript } from '../generated/extend.ts';
import type { ClaimedJob } from '../job-record.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** See {@link Queue.extendLeases}. */
export async function extendLeases<P>(ctx: QueueContext<P>, jobs: readonly ClaimedJob[], leaseMs: number): Promise<(number | null)[]> {
  return (await renewLeases(ctx, jobs, leaseMs)).map((deadline) => (typeof deadline === 'number' ? deadline : null));
}

/** As {@link extendLeases}, telling a job cancelled while it ran (`'cancelled'`) from one lost otherwise (null). */
export async function renewLeases<P>(ctx: QueueContext<P>, jobs: readonly ClaimedJob[], leaseMs: number): Promise<(number | 'cancelled' | null)[]> {
  assertWholeNumber('leaseMs', leaseMs, 1, 12 * 3_600_000);
  if (jobs.length === 0) return [];
  const claims: string[] = [];
  for (const job of jobs) claims.push(job.id, job.token);
  const argv = extendScript.argv({ leases: ctx.keys.leases, jobs: jobs.map((job) => ctx.keys.job(job.id)) }, { leaseMs, prefix: ctx.keys.prefix, claims });
  const reply = await ctx.scripts.run(extendScript, argv);
  return reply.map((deadline) => (Number(deadline) > 0 ? Number(deadline) : Number(deadline) === CLAIM_CANCELLED ? 'cancelled' : null));
}

/** See {@link Queue.extendLease}. */
export async function extendLease<P>(ctx: QueueContext<P>, job: ClaimedJob, leaseMs: number): Promise<number> {
  const [deadline] = await renewLeases(ctx, [job], leaseMs);
  if (deadline === 'cancelled') throw new JobCancelledError(job.id);
  if (deadline === null || deadline === undefined) throw new LostClaimError(job.id, 'extend the lease of');
  return deadline;
}
