import { backoffDelayMs } from '../backoff.ts';
import { errorCode, errorShape } from '../error-shape.ts';
import { assertOptionKeys } from '../option-keys.ts';
import { LostClaimError } from '../errors.ts';
import { FAIL_DEAD_LETTERED, FAIL_DELAYED, FAIL_RETRIED } from '../generated/constants.ts';
import { failScript } from '../generated/fail.ts';
import type { ClaimedJob } from '../job-record.ts';
import { failedHistoryCap } from '../queue-options.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';
import { assertReplicated } from './replication.ts';

/** Options of {@link Queue.fail}. */
export interface FailOptions {
  /** Fail at once, with no retry. */
  permanent?: boolean;
  /** Delay before the retry; default from the kind's (or queue's) backoff policy. */
  retryDelayMs?: number;
}

/** What {@link Queue.fail} did: retried at once, retry scheduled later, or dead-lettered. */
export type FailOutcome = 'retried' | 'delayed' | 'failed';

const OUTCOMES: Record<number, FailOutcome> = { [FAIL_RETRIED]: 'retried', [FAIL_DEAD_LETTERED]: 'failed', [FAIL_DELAYED]: 'delayed' };
/** See {@link Queue.fail}. */
export async function fail<P>(ctx: QueueContext<P>, job: ClaimedJob, error: unknown, options: FailOptions = {}): Promise<FailOutcome> {
  assertOptionKeys<FailOptions>('options', options, { permanent: true, retryDelayMs: true });
  let delay: number;
  if (options.retryDelayMs !== undefined) {
    delay = assertWholeNumber('retryDelayMs', options.retryDelayMs, 0, 365 * 86_400_000);
  } else {
    const kindBackoff = job.kind !== undefined && ctx.kinds.has(job.kind) ? ctx.kinds.options(job.kind).backoff : undefined;
    delay = backoffDelayMs(kindBackoff ?? ctx.options.backoff, job.attempts);
  }
  const k = ctx.keys;
  const o = ctx.options;
  const shape = errorShape(error, o.attemptHistory.stackBytes);
  const argv = failScript.argv(
    { job: k.job(job.id), processing: k.processing, pending: k.pending, delayed: k.delayed, failed: k.failed, leases: k.leases, stats: k.stats, log: k.log },
    {
      jobPrefix: k.jobPrefix,
      id: job.id,
      token: job.token,
      error: shape.message,
      retryDelayMs: delay,
      permanent: options.permanent === true ? 1 : 0,
      maxAttempts: o.maxAttempts,
      ttlSeconds: o.failedTtlSeconds,
      historyCap: failedHistoryCap(o),
      channel: ctx.channel,
      wakeChannel: k.wake,
      prefix: k.prefix,
      logMaxLen: ctx.logMaxLen,
      worker: ctx.workerId,
      errorCode: ctx.logMaxLen === '0' ? '' : errorCode(error),
      errorJson: JSON.stringify(shape),
      attemptsKeep: o.attemptHistory.keep,
    },
  );
  const { reply, replicas } = await ctx.scripts.runAcknowledged(failScript, argv);
  const outcome = OUTCOMES[Number(reply)];
  if (outcome === undefined) throw new LostClaimError(job.id, 'fail');
  assertReplicated(ctx, `the failed attempt of job ${job.id}`, replicas);
  return outcome;
}
