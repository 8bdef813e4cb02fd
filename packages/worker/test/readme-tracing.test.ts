import { readFileSync } from 'node:fs';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/tracing.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README tracing example', () => {
  test('the README shows examples/tracing.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test("examples/tracing.ts runs: the attempt's span links to the enqueue's, and the handler's span is its child", async ({ redisUrl, redis }) => {
    const keys = await queueKeysIn(redis, 'example-trace');
    if (keys.length > 0) await redis.del(...keys);
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await import('../examples/tracing.ts');
      expect(log.mock.calls.slice(0, 2)).toEqual([[true], [true]]);
      expect(log.mock.calls[2]?.[0]).toMatchObject({ 'jobs.kind': 'email', 'jobs.attempt': 1, 'messaging.destination.name': 'example-trace' });
    } finally {
      log.mockRestore();
    }
  });
});
