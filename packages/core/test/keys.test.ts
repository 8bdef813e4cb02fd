import calculateSlot from 'cluster-key-slot';
import { describe, expect, test } from 'vitest';
import { isJobsError, queueKeys } from '../src/index.ts';

describe('key schema', () => {
  test('keeps the recipe key names under a hash-tagged queue name', () => {
    const keys = queueKeys('jobs');
    expect([keys.pending, keys.processing, keys.completed, keys.failed, keys.job('9a4f0d1c'), keys.events]).toEqual([
      'queue:{jobs}:pending',
      'queue:{jobs}:processing',
      'queue:{jobs}:completed',
      'queue:{jobs}:failed',
      'queue:{jobs}:job:9a4f0d1c',
      'queue:{jobs}:events',
    ]);
  });

  test('puts every key of a queue, ours included, in one cluster slot', () => {
    const keys = queueKeys('emails:high');
    const all = [
      keys.pending, keys.processing, keys.completed, keys.failed, keys.delayed, keys.leases, keys.stats,
      keys.reclaimCursor, keys.job('abc'), keys.idempotency('order-1'), keys.idempotency('{evil}'), keys.workers, keys.worker('host:1:ab'),
    ];
    const slots = new Set(all.map((key) => calculateSlot(key)));
    expect(slots.size).toBe(1);
    expect([...slots][0]).toBe(calculateSlot('emails:high'));
    // The recipe's own reference: the name {jobs} hashes to slot 9631.
    expect(calculateSlot(queueKeys('jobs').pending)).toBe(9631);
  });

  test('refuses names that would move the hash tag or widen a SCAN pattern', () => {
    for (const name of ['{jobs}', 'a}b', 'a*', 'a?', 'a[1]', 'a\\b', 'a b', 'a\nb', '', '-x', 42]) {
      let error: unknown;
      try {
        queueKeys(name as string);
      } catch (caught) {
        error = caught;
      }
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT'), String(name)).toBe(true);
    }
  });
});
