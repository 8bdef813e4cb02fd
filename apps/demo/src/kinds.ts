import { defineKinds } from '@jobs/producer';

/** The recipe demo's four kinds, each with a real schema. */
export const demoKinds = defineKinds({
  email: {
    schema: {
      type: 'object',
      properties: {
        recipient: { type: 'string', format: 'email' },
        subject: { type: 'string', maxLength: 200 },
        n: { type: 'integer', minimum: 1 },
      },
      required: ['recipient'],
      additionalProperties: false,
    },
    backoff: { type: 'fixed', delayMs: 100 },
  },
  webhook: {
    schema: {
      type: 'object',
      properties: { url: { type: 'string', format: 'uri' }, event: { type: 'string' }, n: { type: 'integer', minimum: 1 } },
      required: ['url', 'event'],
      additionalProperties: false,
    },
    maxAttempts: 5,
    backoff: { type: 'exponential', delayMs: 50, maxDelayMs: 1_000, jitter: 0.2 },
  },
  thumbnail: {
    schema: {
      type: 'object',
      properties: {
        image: { type: 'string', minLength: 1 },
        width: { type: 'integer', minimum: 16, maximum: 4096 },
        n: { type: 'integer', minimum: 1 },
      },
      required: ['image', 'width'],
      additionalProperties: false,
    },
  },
  invoice: {
    schema: {
      type: 'object',
      properties: {
        customerId: { type: 'string', pattern: '^cus_[A-Za-z0-9]+$' },
        amountCents: { type: 'integer', minimum: 1 },
        currency: { type: 'string', enum: ['EUR', 'USD', 'GBP'] },
        n: { type: 'integer', minimum: 1 },
      },
      required: ['customerId', 'amountCents', 'currency'],
      additionalProperties: false,
    },
    maxAttempts: 2,
  },
});
