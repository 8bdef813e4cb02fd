import { describe, expectTypeOf, test } from 'vitest';
import { claimScript, type ClaimKeys } from '../src/generated/claim.ts';
import type { failScript } from '../src/generated/fail.ts';
import type { ReplyOf } from '../src/lua-script.ts';

describe('generated script types', () => {
  test('a script is called with its keys and arguments by the names in its header', () => {
    expectTypeOf<keyof ClaimKeys>().toEqualTypeOf<'pending' | 'processing' | 'leases' | 'stats' | 'delayed' | 'failed' | 'admission' | 'log'>();
    const keys = { pending: 'p', processing: 'q', leases: 'l', stats: 's', delayed: 'd', failed: 'f', admission: 'w', log: 'g' };
    const args = { jobPrefix: 'j', visibilityMs: 1, maxAttempts: 1, max: 1, tokenBase: 't', failedTtlSeconds: 0, failedHistoryCap: -1, channel: '', prefix: 'q', logMaxLen: 0, worker: '', traced: '0' };
    expectTypeOf(claimScript.argv).toBeCallableWith(keys, args);
    // @ts-expect-error: an argument the header does not name (a type test: never run)
    claimScript.argv(keys, { ...args, extra: 1 });
    // @ts-expect-error: an argument left out
    expectTypeOf(claimScript.argv).toBeCallableWith(keys, { jobPrefix: 'j', visibilityMs: 1, maxAttempts: 1, max: 1 });
    // @ts-expect-error: a key left out
    expectTypeOf(claimScript.argv).toBeCallableWith({ pending: 'p' }, args);
  });

  test('its reply is typed from the header', () => {
    expectTypeOf<ReplyOf<typeof failScript>>().toEqualTypeOf<number>();
    expectTypeOf<ReplyOf<typeof claimScript>>().toEqualTypeOf<[nowMs: number, nextDueMs: number, ...claimed: Array<string | number | null>]>();
  });
});
