import { CHANGED } from '../generated/constants.ts';
import { changePriorityScript } from '../generated/change-priority.ts';
import { assertJobId } from '../keys.ts';
import { assertPriority } from '../priority.ts';
import { randomHex } from '../random-hex.ts';
import { onFirstHolder } from './first-holder.ts';
import type { QueueContext } from './queue-context.ts';

/** What {@link Queue.changePriority} did: changed (to `priority`), or the status that kept the job (`not_found` when there is none). */
export type ChangePriorityOutcome = { readonly changed: true; readonly priority: number } | { readonly changed: false; readonly status: string };

/** See {@link Queue.changePriority}. */
export async function changePriority<P>(holders: readonly QueueContext<P>[], id: string, priority: number): Promise<ChangePriorityOutcome> {
  assertJobId(id);
  const level = assertPriority('priority', priority);
  const request = randomHex();
  return onFirstHolder(holders, async (ctx): Promise<ChangePriorityOutcome> => {
    const k = ctx.keys;
    const argv = changePriorityScript.argv(
      { job: k.job(id), pending: k.pending, log: k.log },
      { id, priority: level, prefix: k.prefix, jobPrefix: k.jobPrefix, logMaxLen: ctx.logMaxLen, worker: ctx.workerId, request },
    );
    const [code, status] = await ctx.scripts.run(changePriorityScript, argv);
    return Number(code) === CHANGED ? { changed: true, priority: level } : { changed: false, status: status || 'not_found' };
  });
}
