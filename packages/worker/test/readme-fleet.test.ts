import { readFileSync } from 'node:fs';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/fleet.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README quiet, resume and scale example', () => {
  test('the README shows examples/fleet.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/fleet.ts runs: the quiet worker leaves a job pending, resumed it runs it, and the scale reaches it', async ({ redisUrl, redis }) => {
    const keys = await queueKeysIn(redis, 'example-fleet');
    if (keys.length > 0) await redis.del(...keys);
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await import('../examples/fleet.ts');
      expect(log.mock.calls).toEqual([[1], ['pending'], [{ width: 640 }], [8], [4]]);
    } finally {
      log.mockRestore();
    }
  });
});
