import { defineKinds } from '@jobs/producer';

const stepSchema = {
  type: 'object',
  properties: { seq: { type: 'string', maxLength: 64 }, ms: { type: 'integer', minimum: 0, maximum: 1_000 }, group: { type: 'string', maxLength: 16 } },
  required: ['seq', 'ms'],
  additionalProperties: false,
} as const;
const retries = { maxAttempts: 25, backoff: { type: 'fixed', delayMs: 50, jitter: 0.5 } } as const;

/**
 * The kinds the chaos run enqueues, each a step that takes `ms` to run: `step` without limits,
 * `capped` under a concurrency cap of {@link CAPPED_CONCURRENCY}, and `grouped`, enqueued in one
 * of {@link CHAOS_GROUPS} (named again in its payload, so the worker's ledger can say which).
 */
export const chaosKinds = defineKinds({
  step: { schema: stepSchema, ...retries },
  capped: { schema: stepSchema, ...retries },
  grouped: { schema: stepSchema, ...retries },
});

/** The queue the chaos run uses. */
export const CHAOS_QUEUE = 'chaos';
/** A short lease, so that crashes are detected, and pauses outlast it. */
export const CHAOS_VISIBILITY_MS = 1_000;
/** The cap on `capped` jobs running at once across every worker. */
export const CAPPED_CONCURRENCY = 2;
/** The groups of `grouped` jobs; each runs one job at a time. */
export const CHAOS_GROUPS = ['g0', 'g1', 'g2', 'g3', 'g4'] as const;
/** The limits the chaos run sets when it runs the limited kinds. */
export const CHAOS_LIMITS = { kinds: { capped: { concurrency: CAPPED_CONCURRENCY } }, groups: { concurrency: 1 } } as const;
