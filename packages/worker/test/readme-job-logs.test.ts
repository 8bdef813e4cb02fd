import { readFileSync } from 'node:fs';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/job-logs.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README job logs example', () => {
  test('the README shows examples/job-logs.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test("examples/job-logs.ts runs: each attempt's outcome, worker and error, and the lines its handler logged", async ({ redisUrl, redis }) => {
    const keys = await queueKeysIn(redis, 'example-job-logs');
    if (keys.length > 0) await redis.del(...keys);
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await import('../examples/job-logs.ts');
      expect(log.mock.calls[0]).toEqual([
        ['#1 retried on mail-1: MAILBOX_FULL mailbox full', '#2 failed on mail-1: MAILBOX_FULL mailbox full'],
        ['sending to alice@example.com, attempt 1', 'sending to alice@example.com, attempt 2'],
      ]);
    } finally {
      log.mockRestore();
    }
  });
});
