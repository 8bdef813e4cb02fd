import { describe, expect, test } from 'vitest';
import { defaultBurst, type QueueLimits } from '../src/index.ts';
import { limitFields, readLimits } from '../src/limits.ts';

const isKind = (name: string): boolean => name === 'email';

describe('limit fields of the admission hash', () => {
  test('a spread limit is stored as max/windowMs/burst, its burst defaulting to ceil(max / 50); a sliding window as max/windowMs', () => {
    expect(defaultBurst(1)).toBe(1);
    expect(defaultBurst(50)).toBe(1);
    expect(defaultBurst(100)).toBe(2);
    expect(defaultBurst(1_000)).toBe(20);
    expect(limitFields({ rate: { max: 100, windowMs: 1_000, spread: true } }, isKind)).toEqual(['rate', '100/1000/2']);
    expect(limitFields({ rate: { max: 100, windowMs: 1_000, spread: true, burst: 7 } }, isKind)).toEqual(['rate', '100/1000/7']);
    expect(limitFields({ rate: { max: 100, windowMs: 1_000, spread: false } }, isKind)).toEqual(['rate', '100/1000']);
    expect(limitFields({ concurrency: 5 }, isKind)).toEqual(['cap', '5']);
  });

  test('what setLimits writes reads back as it was given, with the default burst filled in', () => {
    const limits: QueueLimits = {
      rate: { max: 100, windowMs: 1_000, spread: true },
      concurrency: 8,
      kinds: { email: { rate: { max: 5, windowMs: 60_000 }, concurrency: 2 } },
      groups: { rate: { max: 3, windowMs: 1_000, spread: true, burst: 3 } },
    };
    expect(readLimits(limitFields(limits, isKind))).toEqual({
      rate: { max: 100, windowMs: 1_000, spread: true, burst: 2 },
      concurrency: 8,
      kinds: { email: { rate: { max: 5, windowMs: 60_000 }, concurrency: 2 } },
      groups: { rate: { max: 3, windowMs: 1_000, spread: true, burst: 3 } },
      limitedUntil: {},
    });
  });
});
