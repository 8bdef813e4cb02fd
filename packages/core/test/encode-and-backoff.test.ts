import { describe, expect, test } from 'vitest';
import { backoffDelayMs, isJobsError } from '../src/index.ts';
import { encodeJson } from '../src/json.ts';

describe('encodeJson', () => {
  test('encodes plain JSON unchanged', () => {
    const value = { a: [1, 'two', { three: null, four: true }], 'with/slash': 1.5 };
    expect(JSON.parse(encodeJson(value, 'payload'))).toEqual(value);
  });

  test('refuses what JSON.stringify would silently change, naming the JSON pointer', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cases: [unknown, string][] = [
      [{ a: undefined }, 'payload/a'],
      [{ a: [1, Number.POSITIVE_INFINITY] }, 'payload/a/1'],
      [{ 'x/y': Symbol('s') }, 'payload/x~1y'],
      [{ m: new Map() }, 'payload/m'],
      [cyclic, 'payload/self'],
      [() => 1, 'payload'],
    ];
    for (const [value, field] of cases) {
      let error: unknown;
      try {
        encodeJson(value, 'payload');
      } catch (caught) {
        error = caught;
      }
      expect(isJobsError(error, 'JOBS_NOT_SERIALIZABLE'), field).toBe(true);
      expect((error as { field: string }).field).toBe(field);
    }
  });

  test('counts the limit in UTF-8 bytes', () => {
    expect(() => encodeJson('é'.repeat(10), 'result', 21)).toThrow(/22 bytes of JSON, over the limit of 21/);
    expect(encodeJson('é'.repeat(10), 'result', 22)).toBe(JSON.stringify('é'.repeat(10)));
  });
});

describe('backoff', () => {
  test('fixed waits the same each time', () => {
    expect([1, 2, 5].map((attempt) => backoffDelayMs({ type: 'fixed', delayMs: 500 }, attempt))).toEqual([500, 500, 500]);
  });

  test('exponential doubles from the base and stops at the cap', () => {
    const policy = { type: 'exponential', delayMs: 100, maxDelayMs: 1_000 } as const;
    expect([1, 2, 3, 4, 5].map((attempt) => backoffDelayMs(policy, attempt))).toEqual([100, 200, 400, 800, 1_000]);
  });

  test('jitter lowers the delay by up to its share', () => {
    const policy = { type: 'fixed', delayMs: 1_000, jitter: 0.5 } as const;
    expect(backoffDelayMs(policy, 1, () => 0)).toBe(1_000);
    expect(backoffDelayMs(policy, 1, () => 0.5)).toBe(750);
  });
});
