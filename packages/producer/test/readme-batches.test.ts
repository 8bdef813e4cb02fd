import { readFileSync } from 'node:fs';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/batches.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README batches example', () => {
  test('the README shows examples/batches.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/batches.ts runs: 2,500 jobs added in calls of 1,000, the batch sealed', async ({ redisUrl, redis }) => {
    const keys = await queueKeysIn(redis, 'example-batches');
    if (keys.length > 0) await redis.del(...keys);
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await import('../examples/batches.ts');
      expect(log.mock.calls).toEqual([[2500, 2500, true]]);
      expect(await redis.hget('queue:{example-batches}:batch:campaign-december', 'total')).toBe('2500');
    } finally {
      log.mockRestore();
    }
  });
});
