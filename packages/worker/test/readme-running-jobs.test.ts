import { readFileSync } from 'node:fs';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/running-jobs.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README running-jobs example', () => {
  test('the README shows examples/running-jobs.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/running-jobs.ts runs: a crawl resumes from its checkpoint, a report snoozes, a running render is cancelled', async ({ redisUrl, redis }) => {
    const keys = await queueKeysIn(redis, 'example-running');
    if (keys.length > 0) await redis.del(...keys);
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await import('../examples/running-jobs.ts');
      expect(log.mock.calls).toEqual([
        [{ pages: 4, attempt: 2 }, [1, 2, 3, 4]],
        [{ attempt: 1 }, 1],
        [{ cancelled: true, wasRunning: true }, true],
      ]);
    } finally {
      log.mockRestore();
    }
  });
});
