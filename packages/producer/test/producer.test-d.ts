import { describe, expectTypeOf, test } from 'vitest';
import type { PayloadTypesOf, Producer } from '../src/index.ts';
import type { kinds } from './kinds.ts';

declare const producer: Producer<PayloadTypesOf<typeof kinds>>;

describe('producer types', () => {
  test('enqueue types follow the kind schemas', () => {
    expectTypeOf(producer.enqueue<'resize'>).toBeCallableWith('resize', { image: 'a.png', width: 64 });
    // @ts-expect-error: unknown kind
    expectTypeOf(producer.enqueue).toBeCallableWith('sms', { to: '1' });
    // @ts-expect-error: width must be a number
    expectTypeOf(producer.enqueue<'resize'>).toBeCallableWith('resize', { image: 'a.png', width: '64' });
    // @ts-expect-error: image is required
    expectTypeOf(producer.enqueue<'resize'>).toBeCallableWith('resize', { width: 64 });
    // @ts-expect-error: a batch entry is checked against its own kind (a type test: never run)
    void producer.enqueueMany([{ kind: 'email', payload: { image: 'a.png', width: 1 } }]);
  });
});
