import { LostClaimError } from '../errors.ts';
import { NOT_OWNER } from '../generated/constants.ts';
import { pauseScript } from '../generated/pause.ts';
import { rateLimitedScript } from '../generated/rate-limited.ts';
import { setLimitsScript } from '../generated/set-limits.ts';
import type { ClaimedJob } from '../job-record.ts';
import { limitFields, readLimits, type LimitsState, type QueueLimits } from '../limits.ts';
import { withRedisErrors } from '../redis-connection.ts';
import { assertWholeNumber } from '../whole-number.ts';
import { errorText } from './fail.ts';
import type { QueueContext } from './queue-context.ts';

/** Parked jobs moved back per script call once their kind's limits are gone. */
const UNPARK_BATCH = 1_000;

/** See {@link JobQueue.setLimits}: jobs held back by a limit that is gone go back to their lists. */
export async function setLimits<P>(ctx: QueueContext<P>, limits: QueueLimits): Promise<void> {
  const k = ctx.keys;
  const fields = limitFields(limits, (name) => ctx.kinds.has(name));
  const freed = await ctx.scripts.run(setLimitsScript, setLimitsScript.argv({ flow: k.flow }, { fields }));
  // The kinds that lost their limits get their parked jobs back, in batches, until none is left
  // (or the kind is paused, which keeps them parked).
  const pauseKeys = { flow: k.flow, resume: k.resume, pending: k.pending };
  for (const kind of freed) {
    const unpark = (): Promise<number> =>
      ctx.scripts.run(pauseScript, pauseScript.argv(pauseKeys, { jobPrefix: k.jobPrefix, action: 'unpark', kind, batch: UNPARK_BATCH, prefix: k.prefix }));
    let left = Number(await unpark());
    while (left > 0) left = Number(await unpark());
  }
}

/** See {@link JobQueue.limits}. */
export async function limits<P>(ctx: QueueContext<P>): Promise<LimitsState> {
  await ctx.ready();
  const hash = await withRedisErrors(() => ctx.client.hgetall(ctx.keys.flow));
  return readLimits(Object.entries(hash).flat());
}

/** See {@link JobQueue.rateLimited}. */
export async function rateLimited<P>(ctx: QueueContext<P>, job: ClaimedJob, retryAfterMs: number, reason = `rate limited for ${retryAfterMs} ms`): Promise<number> {
  assertWholeNumber('retryAfterMs', retryAfterMs, 1, 86_400_000);
  const k = ctx.keys;
  const argv = rateLimitedScript.argv(
    { job: k.job(job.id), processing: k.processing, pending: k.pending, leases: k.leases, stats: k.stats, flow: k.flow, log: k.log },
    { jobPrefix: k.jobPrefix, id: job.id, token: job.token, retryAfterMs, error: errorText(reason), channel: ctx.channel, prefix: k.prefix, logMaxLen: ctx.logMaxLen, worker: ctx.workerId },
  );
  const until = Number(await ctx.scripts.run(rateLimitedScript, argv));
  if (until === NOT_OWNER) throw new LostClaimError(job.id, 'hand back');
  return until;
}
