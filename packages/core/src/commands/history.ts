import { InvalidArgumentError } from '../errors.ts';
import { METRICS_SLOT_FIELDS } from '../generated/constants.ts';
import { metricsAddScript } from '../generated/metrics-add.ts';
import { metricsReadScript } from '../generated/metrics-read.ts';
import { addSlots, historyColumns, HISTORY_MAX_SINCE_MS, ringFor, type HistoryColumns, type StepTotals } from '../history-buckets.ts';
import { KIND_NAME_PATTERN } from '../kinds.ts';
import { assertOptionKeys } from '../option-keys.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** Options of {@link Queue.history}. */
export interface HistoryOptions {
  /**
   * How far back (ms): up to 24 hours the minute ring answers, past it the hour ring. Whole ms
   * from 60,000 to 1,209,600,000 (14 days). Default 3,600,000 (an hour).
   */
  since?: number;
  /** One kind's history; default every kind's, summed. */
  kind?: string;
  /**
   * The length of a step of the answer (ms): a multiple of the ring's step (a minute up to 24
   * hours, an hour past it), whose steps are merged into it. Default the ring's step.
   */
  stepMs?: number;
}

/** A queue's metrics history (see {@link Queue.history}): one entry per step in each column, oldest first. */
export interface QueueHistory extends HistoryColumns {
  /** The kind asked for, or null for every kind summed. */
  readonly kind: string | null;
  /** The kinds that have a history, in name order. */
  readonly kinds: string[];
  /** Redis time when it was read (partition 0's server). */
  readonly nowMs: number;
}

/** See {@link Queue.history}: one script call per partition, which copies the slots out; they are decoded and summed here. */
export async function readHistory<P>(partitions: readonly QueueContext<P>[], options: HistoryOptions = {}): Promise<QueueHistory> {
  assertOptionKeys<HistoryOptions>('options', options, { since: true, kind: true, stepMs: true });
  const since = assertWholeNumber('since', options.since ?? 3_600_000, 60_000, HISTORY_MAX_SINCE_MS);
  const kind = options.kind;
  if (kind !== undefined && (typeof kind !== 'string' || !KIND_NAME_PATTERN.test(kind))) {
    throw new InvalidArgumentError('kind', `expected a kind name (a letter, then up to 63 letters, digits, '_', '.' or '-'), got ${JSON.stringify(kind)}`);
  }
  const { ring, steps } = ringFor(since);
  const stepMs = assertWholeNumber('stepMs', options.stepMs ?? ring.stepMs, ring.stepMs, Math.max(ring.stepMs, since));
  if (stepMs % ring.stepMs !== 0) throw new InvalidArgumentError('stepMs', `expected a multiple of ${ring.stepMs} ms (the step of the history kept for ${since} ms), got ${stepMs}`);
  const replies = await Promise.all(
    partitions.map((ctx) => ctx.scripts.runBytes(metricsReadScript, metricsReadScript.argv({ kinds: ctx.keys.metricsKinds }, { prefix: ctx.keys.prefix, ring: ring.ring, steps, kind: kind ?? '' }))),
  );
  const totals: StepTotals = new Map();
  const kinds = new Set<string>();
  for (const [, first, names, chunks] of replies) {
    for (const name of names) kinds.add(name.toString());
    for (const chunk of chunks) addSlots(totals, chunk, Number(first), steps);
  }
  const nowMs = Number(replies[0]?.[0] ?? 0);
  return { ...historyColumns(totals, ring, steps, nowMs, stepMs / ring.stepMs), kind: kind ?? null, kinds: [...kinds].sort(), nowMs };
}

/**
 * Adds counts to the metrics history of `ctx`'s queue, in the current minute and hour (Redis
 * time): per kind, {@link METRICS_SLOT_FIELDS} amounts (index 0 is field 1, see
 * `HISTORY_FIELD`), zeros skipped. Not idempotent: a call sent twice counts twice. Resolves with
 * Redis time; sends nothing when every amount is 0.
 */
export async function addHistory<P>(ctx: QueueContext<P>, counts: ReadonlyMap<string, readonly number[]>): Promise<number | undefined> {
  const args: (string | number)[] = [];
  for (const [kind, amounts] of counts) {
    const pairs: number[] = [];
    for (let f = 0; f < METRICS_SLOT_FIELDS; f += 1) {
      const amount = amounts[f] ?? 0;
      if (amount > 0) pairs.push(f + 1, assertWholeNumber('amount', amount, 1, 4_294_967_295));
    }
    if (pairs.length > 0) args.push(kind, pairs.length / 2, ...pairs);
  }
  if (args.length === 0) return undefined;
  return Number(await ctx.scripts.run(metricsAddScript, metricsAddScript.argv({ kinds: ctx.keys.metricsKinds }, { prefix: ctx.keys.prefix, counts: args }), false));
}
