import { readFileSync } from 'node:fs';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/dedupe.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README deduplication example', () => {
  test('the README shows examples/dedupe.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/dedupe.ts runs: a burst debounced into one job with the last payload, a second daily report refused', async ({ redisUrl, redis }) => {
    const keys = await queueKeysIn(redis, 'example-dedupe');
    if (keys.length > 0) await redis.del(...keys);
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await import('../examples/dedupe.ts');
      expect(log.mock.calls).toEqual([[['created', 'dedupe', 'dedupe']], ['delayed', 'shipped'], [true]]);
    } finally {
      log.mockRestore();
    }
  });
});
