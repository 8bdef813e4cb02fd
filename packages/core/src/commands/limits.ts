import { LostClaimError } from '../errors.ts';
import { NOT_OWNER } from '../generated/constants.ts';
import { rateLimitedScript } from '../generated/rate-limited.ts';
import { setLimitsScript } from '../generated/set-limits.ts';
import type { ClaimedJob } from '../job-record.ts';
import { limitFields, readLimits, type LimitsState, type QueueLimits } from '../limits.ts';
import { withRedisErrors } from '../redis-connection.ts';
import { assertWholeNumber } from '../whole-number.ts';
import { errorShape } from '../error-shape.ts';
import { unparkAll } from './unpark.ts';
import type { QueueContext } from './queue-context.ts';

/**
 * See {@link Queue.setLimits}: jobs held back by a limit that is gone go back to their lists.
 * Which ones is read from the state, not from what this call changed, so a call whose reply was
 * lost and is sent again, or a second call, moves them all; they go back in batches, and a
 * caller that dies meanwhile leaves them counted, listed and marked for the sweeps to finish.
 * The unpark runs even when the script counted none: it also finds jobs parked with no mark.
 */
export async function setLimits<P>(partitions: readonly QueueContext<P>[], limits: QueueLimits): Promise<void> {
  if (partitions.length === 1) return setLimitsOn(partitions[0] as QueueContext<P>, limits);
  await Promise.all(partitions.map((ctx) => setLimitsOn(ctx, limits)));
}

async function setLimitsOn<P>(ctx: QueueContext<P>, limits: QueueLimits): Promise<void> {
  const k = ctx.keys;
  const fields = limitFields(limits, (name) => ctx.kinds.has(name));
  await ctx.scripts.run(setLimitsScript, setLimitsScript.argv({ admission: k.admission }, { prefix: k.prefix, fields }));
  await unparkAll(ctx);
}

/** See {@link Queue.limits}: partition 0's, as every partition's are set alike. */
export async function limits<P>(partitions: readonly QueueContext<P>[]): Promise<LimitsState> {
  const ctx = partitions[0] as QueueContext<P>;
  await ctx.ready();
  const hash = await withRedisErrors(() => ctx.client.hgetall(ctx.keys.admission));
  return readLimits(Object.entries(hash).flat());
}

/** See {@link Queue.rateLimited}. */
export async function rateLimited<P>(ctx: QueueContext<P>, job: ClaimedJob, retryAfterMs: number, reason = `rate limited for ${retryAfterMs} ms`): Promise<number> {
  assertWholeNumber('retryAfterMs', retryAfterMs, 1, 86_400_000);
  const k = ctx.keys;
  const shape = { code: 'RATE_LIMITED', message: errorShape(reason, 0).message };
  const argv = rateLimitedScript.argv(
    { job: k.job(job.id), processing: k.processing, pending: k.pending, leases: k.leases, stats: k.stats, admission: k.admission, log: k.log },
    {
      jobPrefix: k.jobPrefix,
      id: job.id,
      token: job.token,
      retryAfterMs,
      error: shape.message,
      channel: ctx.channel,
      prefix: k.prefix,
      logMaxLen: ctx.logMaxLen,
      worker: ctx.workerId,
      errorJson: JSON.stringify(shape),
      attemptsKeep: ctx.options.attemptHistory.keep,
    },
  );
  const until = Number(await ctx.scripts.run(rateLimitedScript, argv));
  if (until === NOT_OWNER) throw new LostClaimError(job.id, 'hand back');
  return until;
}
