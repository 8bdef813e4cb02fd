import { defineKinds } from '@jobs/producer';

// Every kind takes the recipe demo's `recipient` and `n` (so scripts written for the recipe's
// demo still enqueue valid jobs), plus what that kind of work needs.
const recipient = { type: 'string', format: 'email', maxLength: 254 } as const;
const n = { type: 'integer', minimum: 1, maximum: 1_000_000 } as const;

/** The recipe demo's four kinds, each with a real schema. */
export const demoKinds = defineKinds({
  email: {
    schema: {
      type: 'object',
      properties: { recipient, n, subject: { type: 'string', maxLength: 200 }, body: { type: 'string', maxLength: 10_000 } },
      required: ['recipient'],
      additionalProperties: false,
    },
    maxAttempts: 3,
  },
  webhook: {
    schema: {
      type: 'object',
      properties: { recipient, n, url: { type: 'string', format: 'uri', pattern: '^https?://' }, event: { type: 'string', minLength: 1, maxLength: 100 } },
      required: ['url', 'event'],
      additionalProperties: false,
    },
    maxAttempts: 5,
  },
  thumbnail: {
    schema: {
      type: 'object',
      properties: { recipient, n, image: { type: 'string', minLength: 1, maxLength: 500 }, width: { type: 'integer', minimum: 16, maximum: 4096 } },
      required: ['image', 'width'],
      additionalProperties: false,
    },
  },
  invoice: {
    schema: {
      type: 'object',
      properties: {
        recipient,
        n,
        customerId: { type: 'string', pattern: '^cus_[A-Za-z0-9]{1,40}$' },
        amountCents: { type: 'integer', minimum: 1, maximum: 100_000_000 },
        currency: { type: 'string', enum: ['EUR', 'USD', 'GBP'] },
      },
      required: ['customerId', 'amountCents', 'currency'],
      additionalProperties: false,
    },
    maxAttempts: 2,
  },
});

/** The kind names, in the page's order. */
export const DEMO_KINDS = demoKinds.names;

/** A valid payload of `kind` for the recipe demo's form: a recipient and a sequence number. */
export function recipePayload(kind: (typeof DEMO_KINDS)[number], recipientAddress: string, sequence: number) {
  switch (kind) {
    case 'email':
      return { kind, payload: { recipient: recipientAddress, n: sequence, subject: `Demo message ${sequence}` } };
    case 'webhook':
      return { kind, payload: { recipient: recipientAddress, n: sequence, url: `https://hooks.example.com/orders/${sequence}`, event: 'order.paid' } };
    case 'thumbnail':
      return { kind, payload: { recipient: recipientAddress, n: sequence, image: `photos/${sequence}.jpg`, width: 256 } };
    case 'invoice':
      return { kind, payload: { recipient: recipientAddress, n: sequence, customerId: `cus_${sequence}`, amountCents: 1_000 + sequence, currency: 'EUR' as const } };
  }
}
