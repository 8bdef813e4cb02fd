import { readFileSync } from 'node:fs';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/limits.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README limits example', () => {
  test('the README shows examples/limits.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/limits.ts runs: the rate limit spreads the starts, the pushback uses no attempt, as its comments say', async ({ redisUrl, redis }) => {
    const keys = await queueKeysIn(redis, 'example-limits');
    if (keys.length > 0) await redis.del(...keys);
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await import('../examples/limits.ts');
      expect(log.mock.calls).toEqual([[true], [true], [1]]);
    } finally {
      log.mockRestore();
    }
  });
});
