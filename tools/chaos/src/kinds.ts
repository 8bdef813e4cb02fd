import { defineKinds } from '@jobs/producer';

/** The one kind the chaos run enqueues: a step that takes `ms` to run. */
export const chaosKinds = defineKinds({
  step: {
    schema: {
      type: 'object',
      properties: { seq: { type: 'string', maxLength: 64 }, ms: { type: 'integer', minimum: 0, maximum: 1_000 } },
      required: ['seq', 'ms'],
      additionalProperties: false,
    },
    maxAttempts: 25,
    backoff: { type: 'fixed', delayMs: 50, jitter: 0.5 },
  },
});

/** The queue the chaos run uses. */
export const CHAOS_QUEUE = 'chaos';
/** A short lease, so that crashes are detected, and pauses outlast it. */
export const CHAOS_VISIBILITY_MS = 1_000;
