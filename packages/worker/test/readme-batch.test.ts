import { readFileSync } from 'node:fs';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/batch.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README batches example', () => {
  test('the README shows examples/batch.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/batch.ts runs: four jobs in one handler call, each settled on its own', async ({ redisUrl, redis }) => {
    const keys = await queueKeysIn(redis, 'example-batch');
    if (keys.length > 0) await redis.del(...keys);
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await import('../examples/batch.ts');
      expect(log.mock.calls).toEqual([[{ vector: [11, 2] }, { vector: [13, 3] }], [true], [[4]]]);
    } finally {
      log.mockRestore();
    }
  });
});
