import { defineKinds } from '../src/index.ts';

/** Kinds for the producer's tests. */
export const kinds = defineKinds({
  email: {
    schema: {
      type: 'object',
      properties: { recipient: { type: 'string', format: 'email' }, subject: { type: 'string' } },
      required: ['recipient'],
      additionalProperties: false,
    },
  },
  resize: {
    schema: {
      type: 'object',
      properties: { image: { type: 'string' }, width: { type: 'integer', minimum: 1 } },
      required: ['image', 'width'],
      additionalProperties: false,
    },
    maxAttempts: 1,
  },
});
