import { LostClaimError } from '../errors.ts';
import { CLAIM_DONE } from '../generated/constants.ts';
import { progressScript } from '../generated/progress.ts';
import type { ClaimedJob } from '../job-record.ts';
import { encodeJson } from '../json.ts';
import type { QueueContext } from './queue-context.ts';

/** The largest progress value a handler may report, in bytes of JSON. */
export const MAX_PROGRESS_BYTES = 16 * 1024;

/** See {@link Queue.progress}. */
export async function progress<P>(ctx: QueueContext<P>, job: ClaimedJob, value: unknown): Promise<void> {
  const json = encodeJson(value, 'progress', MAX_PROGRESS_BYTES);
  const argv = progressScript.argv(
    { job: ctx.keys.job(job.id), log: ctx.keys.log },
    { id: job.id, token: job.token, progress: json, channel: ctx.channel, logMaxLen: ctx.logMaxLen, jobPrefix: ctx.keys.jobPrefix, worker: ctx.workerId },
  );
  const stored = await ctx.scripts.run(progressScript, argv);
  if (Number(stored) !== CLAIM_DONE) throw new LostClaimError(job.id, 'record the progress of');
}
