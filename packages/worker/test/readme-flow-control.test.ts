import { readFileSync } from 'node:fs';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/flow-control.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README flow-control example', () => {
  test('the README shows examples/flow-control.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/flow-control.ts runs: priority order, progress, expiry and a paused kind as its comments say', async ({ redisUrl, redis }) => {
    const keys = await queueKeysIn(redis, 'example-flow');
    if (keys.length > 0) await redis.del(...keys);
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await import('../examples/flow-control.ts');
      expect(log.mock.calls).toEqual([[true, { page: 3, of: 3 }], ['JOBS_EXPIRED'], ['pending'], [{ posted: 'https://example.com/hook' }]]);
    } finally {
      log.mockRestore();
    }
  });
});
