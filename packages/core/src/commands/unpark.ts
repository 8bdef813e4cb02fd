import { unparkScript } from '../generated/unpark.ts';
import { assertOptionKeys } from '../option-keys.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** Parked jobs moved back per script call by default. */
const UNPARK_BATCH = 1_000;

/** See {@link Queue.unparkFreed}. */
export async function unparkFreed<P>(ctx: QueueContext<P>, options: { batch?: number } = {}): Promise<{ unparked: number; more: boolean }> {
  assertOptionKeys<{ batch?: number }>('options', options, { batch: true });
  const batch = assertWholeNumber('batch', options.batch ?? UNPARK_BATCH, 1, 100_000);
  const k = ctx.keys;
  const [moved, left] = await ctx.scripts.run(unparkScript, unparkScript.argv({ admission: k.admission, pending: k.pending }, { jobPrefix: k.jobPrefix, prefix: k.prefix, batch, kinds: ctx.kinds.names }));
  return { unparked: Number(moved), more: Number(left) > 0 };
}

/** Runs {@link unparkFreed} until no parked job of a kind that nothing holds back is left. */
export async function unparkAll<P>(ctx: QueueContext<P>): Promise<void> {
  while ((await unparkFreed(ctx)).more);
}
