import { readFileSync } from 'node:fs';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/traced-enqueue.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README tracing example', () => {
  test('the README shows examples/traced-enqueue.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test("examples/traced-enqueue.ts runs: the job stores its enqueue span's context", async ({ redisUrl, redis }) => {
    const keys = await queueKeysIn(redis, 'example-traced');
    if (keys.length > 0) await redis.del(...keys);
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await import('../examples/traced-enqueue.ts');
      expect(log.mock.calls).toEqual([[true]]);
    } finally {
      log.mockRestore();
    }
  });
});
