import { defineKinds, type HandlerMap, type PayloadTypesOf } from '../src/index.ts';

/** Four kinds, as a real service would have. */
export const kinds = defineKinds({
  email: {
    schema: {
      type: 'object',
      properties: { recipient: { type: 'string', format: 'email' }, n: { type: 'integer' } },
      required: ['recipient'],
      additionalProperties: false,
    },
    backoff: { type: 'fixed', delayMs: 20 },
  },
  webhook: {
    schema: {
      type: 'object',
      properties: { url: { type: 'string', format: 'uri' }, n: { type: 'integer' } },
      required: ['url'],
      additionalProperties: false,
    },
    maxAttempts: 2,
    backoff: { type: 'fixed', delayMs: 0 },
  },
  thumbnail: {
    schema: {
      type: 'object',
      properties: { image: { type: 'string' }, width: { type: 'integer', minimum: 1 }, ms: { type: 'integer', minimum: 0 } },
      required: ['image', 'width'],
      additionalProperties: false,
    },
    timeoutMs: 200,
    maxAttempts: 1,
  },
  invoice: {
    schema: {
      type: 'object',
      properties: { customerId: { type: 'string' }, cents: { type: 'integer', minimum: 1 }, n: { type: 'integer' } },
      required: ['customerId', 'cents'],
      additionalProperties: false,
    },
  },
});

/** A handler per kind that completes at once with a result naming its payload. */
export const okHandlers: HandlerMap<PayloadTypesOf<typeof kinds>> = {
  email: ({ recipient }) => ({ sentTo: recipient }),
  webhook: ({ url }) => ({ posted: url }),
  thumbnail: ({ image, width }) => ({ thumb: `${image}@${width}` }),
  invoice: ({ customerId, cents }) => ({ charged: cents, customerId }),
};
