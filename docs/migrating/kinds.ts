import { defineKinds } from '@jobs/producer';

// One module that producers and workers share: each kind of job, its payload's JSON schema (the
// payload types are inferred from it) and its retry policy.
export const kinds = defineKinds({
  welcome: {
    schema: {
      type: 'object',
      properties: { userId: { type: 'string' }, locale: { type: 'string', enum: ['en', 'fr'] } },
      required: ['userId'],
      additionalProperties: false,
    },
    maxAttempts: 5, // `attempts`: every run counts, the first one too
    backoff: { type: 'exponential', delayMs: 2_000 }, // `backoff: { type: 'exponential', delay: 2000 }`
  },
  report: {
    schema: {
      type: 'object',
      properties: { month: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}$' } },
      required: ['month'],
      additionalProperties: false,
    },
    maxAttempts: 2,
    priority: -10, // below the default 0: reports wait while other work is pending (higher runs first)
    timeoutMs: 10 * 60_000, // past it the attempt fails and the handler's signal aborts
    visibilityMs: 60_000, // this kind's lease (`lockDuration`), renewed while it runs
  },
  digest: {
    schema: {
      type: 'object',
      properties: { team: { type: 'string' } },
      required: ['team'],
      additionalProperties: false,
    },
  },
});
