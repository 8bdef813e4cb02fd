import { CLAIM_DONE } from '../generated/constants.ts';
import { releaseScript } from '../generated/release.ts';
import type { ClaimedJob } from '../job-record.ts';
import type { QueueContext } from './queue-context.ts';

/** See {@link Queue.release}. */
export async function release<P>(ctx: QueueContext<P>, jobs: readonly ClaimedJob[]): Promise<boolean[]> {
  if (jobs.length === 0) return [];
  const k = ctx.keys;
  const claims: string[] = [];
  for (const job of jobs) claims.push(job.id, job.token);
  const argv = releaseScript.argv(
    { processing: k.processing, pending: k.pending, leases: k.leases, stats: k.stats, log: k.log, jobs: jobs.map((job) => k.job(job.id)) },
    { channel: ctx.channel, prefix: k.prefix, logMaxLen: ctx.logMaxLen, jobPrefix: k.jobPrefix, worker: ctx.workerId, attemptsKeep: ctx.options.attemptHistory.keep, claims },
  );
  const reply = await ctx.scripts.run(releaseScript, argv);
  return reply.map((code) => Number(code) === CLAIM_DONE);
}
