import { JobCancelledError, LostClaimError } from '../errors.ts';
import { CLAIM_CANCELLED, CLAIM_DONE } from '../generated/constants.ts';
import { checkpointScript } from '../generated/checkpoint.ts';
import type { ClaimedJob } from '../job-record.ts';
import { encodeJson } from '../json.ts';
import { withRedisErrors } from '../redis-connection.ts';
import type { QueueContext } from './queue-context.ts';

/** The largest checkpoint a handler may store, in bytes of JSON. */
export const MAX_CHECKPOINT_BYTES = 64 * 1024;

/** See {@link Partition.checkpoint}. */
export async function checkpoint<P>(ctx: QueueContext<P>, job: ClaimedJob, state: unknown): Promise<void> {
  const json = encodeJson(state, 'checkpoint', MAX_CHECKPOINT_BYTES);
  const argv = checkpointScript.argv({ job: ctx.keys.job(job.id) }, { token: job.token, checkpoint: json });
  const code = Number(await ctx.scripts.run(checkpointScript, argv));
  if (code === CLAIM_CANCELLED) throw new JobCancelledError(job.id);
  if (code !== CLAIM_DONE) throw new LostClaimError(job.id, 'store the checkpoint of');
}

/** See {@link Partition.checkpointed}: one read of the job's hash. */
export async function checkpointed<P>(ctx: QueueContext<P>, id: string): Promise<unknown> {
  const stored = await withRedisErrors(() => ctx.client.hget(ctx.keys.job(id), 'checkpoint'));
  if (stored === null) return undefined;
  try {
    return JSON.parse(stored) as unknown;
  } catch {
    // Hand-written and not JSON: as if there were none, rather than failing every attempt.
    return undefined;
  }
}
