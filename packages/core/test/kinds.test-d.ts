import { describe, expectTypeOf, test } from 'vitest';
import type { Queue, PayloadOf, PayloadTypesOf } from '../src/index.ts';
import type { kinds } from './fixtures.ts';

type Payloads = PayloadTypesOf<typeof kinds>;
declare const queue: Queue<Payloads>;

describe('kind types', () => {
  test('payload types are inferred from the schemas', () => {
    expectTypeOf<PayloadOf<Payloads, 'email'>>().toEqualTypeOf<{ recipient: string; subject?: string; n?: number }>();
    expectTypeOf<PayloadOf<Payloads, 'thumbnail'>>().toMatchTypeOf<{ image: string; width: number }>();
    expectTypeOf<(typeof kinds)['names']>().toEqualTypeOf<readonly ('email' | 'webhook' | 'thumbnail')[]>();
  });

  test('an enqueue must match its kind', () => {
    expectTypeOf(queue.enqueue<'email'>).toBeCallableWith('email', { recipient: 'a@example.com', subject: 'hi' });
    // @ts-expect-error: unknown kind
    expectTypeOf(queue.enqueue).toBeCallableWith('sms', { recipient: 'a@example.com' });
    // @ts-expect-error: missing required field
    expectTypeOf(queue.enqueue<'email'>).toBeCallableWith('email', {});
    // @ts-expect-error: wrong field type
    expectTypeOf(queue.enqueue<'thumbnail'>).toBeCallableWith('thumbnail', { image: 'a.png', width: '10' });
    // @ts-expect-error: a field the schema does not allow (a type test: never run)
    void queue.enqueue('email', { recipient: 'a@example.com', cc: 'b@example.com' });
  });
});
