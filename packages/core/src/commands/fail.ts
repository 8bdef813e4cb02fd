import { backoffDelayMs } from '../backoff.ts';
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
const MAX_ERROR_CHARS = 4_096;

/** What a failed attempt's error is stored as: its name and message, cut to 4096 characters. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? (error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message) : String(error);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}...` : text;
}

/** The error's code for the event log: its string `code`, else its name (at most 64 characters). */
function errorCode(error: unknown): string {
  const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : error instanceof Error ? error.name : '';
  return code.slice(0, 64);
}

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
  const argv = failScript.argv(
    { job: k.job(job.id), processing: k.processing, pending: k.pending, delayed: k.delayed, failed: k.failed, leases: k.leases, stats: k.stats, log: k.log },
    {
      jobPrefix: k.jobPrefix,
      id: job.id,
      token: job.token,
      error: errorText(error),
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
    },
  );
  const { reply, replicas } = await ctx.scripts.runAcknowledged(failScript, argv);
  const outcome = OUTCOMES[Number(reply)];
  if (outcome === undefined) throw new LostClaimError(job.id, 'fail');
  assertReplicated(ctx, `the failed attempt of job ${job.id}`, replicas);
  return outcome;
}
