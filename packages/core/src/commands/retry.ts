import { REDRIVEN } from '../generated/constants.ts';
import { assertOptionKeys } from '../option-keys.ts';
import { retryScript } from '../generated/retry.ts';
import { assertJobId } from '../keys.ts';
import { randomHex } from '../random-hex.ts';
import { withRedisErrors } from '../redis-connection.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** See {@link Queue.retry}. */
export async function retry<P>(ctx: QueueContext<P>, ids: readonly string[]): Promise<(true | string)[]> {
  if (ids.length === 0) return [];
  ids.forEach((id, index) => assertJobId(id, `ids[${index}]`));
  const k = ctx.keys;
  const argv = retryScript.argv(
    { failed: k.failed, pending: k.pending, stats: k.stats, log: k.log, jobs: ids.map((id) => k.job(id)) },
    { prefix: k.prefix, logMaxLen: ctx.logMaxLen, jobPrefix: k.jobPrefix, worker: ctx.workerId, request: randomHex(), ids },
  );
  const reply = await ctx.scripts.run(retryScript, argv);
  return reply.map((code) => (Number(code) === REDRIVEN ? true : String(code) || 'not_found'));
}

/** See {@link Queue.retryFailed}. */
export async function retryFailed<P>(ctx: QueueContext<P>, options: { batch?: number } = {}): Promise<{ retried: string[]; more: boolean }> {
  assertOptionKeys<{ batch?: number }>('options', options, { batch: true });
  const batch = assertWholeNumber('batch', options.batch ?? 500, 1, 10_000);
  await ctx.ready();
  const ids = await withRedisErrors(() => ctx.client.lrange(ctx.keys.failed, -batch, -1));
  const outcomes = await retry(ctx, ids);
  const remaining = await withRedisErrors(() => ctx.client.llen(ctx.keys.failed));
  return { retried: ids.filter((_, index) => outcomes[index] === true), more: remaining > 0 };
}
