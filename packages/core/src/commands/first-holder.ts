import type { QueueContext } from './queue-context.ts';

/**
 * Runs a verb of one job on the one context that holds it or, for an id made elsewhere (no
 * partition in it), on each in turn until one has the job: the first outcome whose `status` is
 * not `not_found`.
 */
export async function onFirstHolder<P, O extends object>(holders: readonly QueueContext<P>[], run: (ctx: QueueContext<P>) => Promise<O>): Promise<O> {
  let outcome: O | undefined;
  for (const ctx of holders) {
    outcome = await run(ctx);
    if (!('status' in outcome) || outcome.status !== 'not_found') return outcome;
  }
  return outcome as O;
}
