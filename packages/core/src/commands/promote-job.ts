import { PROMOTED } from '../generated/constants.ts';
import { promoteJobScript } from '../generated/promote-job.ts';
import { assertJobId } from '../keys.ts';
import { randomHex } from '../random-hex.ts';
import { onFirstHolder } from './first-holder.ts';
import type { QueueContext } from './queue-context.ts';

/** What {@link Queue.promote} did: promoted, or the status that kept the job (`not_found` when there is none). */
export type PromoteOutcome = { readonly promoted: true } | { readonly promoted: false; readonly status: string };

/** See {@link Queue.promote}. */
export async function promoteJob<P>(holders: readonly QueueContext<P>[], id: string): Promise<PromoteOutcome> {
  assertJobId(id);
  // One request id for the call: a resend (ioredis, after a lost reply) carries the same.
  const request = randomHex();
  return onFirstHolder(holders, async (ctx): Promise<PromoteOutcome> => {
    const k = ctx.keys;
    const argv = promoteJobScript.argv(
      { job: k.job(id), delayed: k.delayed, pending: k.pending, log: k.log },
      { id, prefix: k.prefix, jobPrefix: k.jobPrefix, logMaxLen: ctx.logMaxLen, worker: ctx.workerId, request },
    );
    const [code, status] = await ctx.scripts.run(promoteJobScript, argv);
    return Number(code) === PROMOTED ? { promoted: true } : { promoted: false, status: status || 'not_found' };
  });
}
