import { readFileSync } from 'node:fs';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The README's admission examples (priorities, pauses, expiry, limits): each file, its queue, what it shows, and what it logs. */
const EXAMPLES = [
  {
    file: 'admission.ts',
    queue: 'example-admission',
    shows: 'priority order, progress, expiry and a paused kind',
    logs: [[true, { page: 3, of: 3 }], ['JOBS_EXPIRED'], ['pending'], [{ posted: 'https://example.com/hook' }]],
  },
  { file: 'limits.ts', queue: 'example-limits', shows: 'the rate limit spreads the starts, the pushback uses no attempt', logs: [[true], [true], [1]] },
  {
    file: 'queue-limits.ts',
    queue: 'example-queue-limits',
    shows: 'the queue cap holds, a spread limit paces the starts, a cost takes its share',
    logs: [[true], [true, true], [{ max: 20, windowMs: 1_000, spread: true, burst: 1 }]],
  },
];

for (const example of EXAMPLES) {
  describe(`README ${example.file} example`, () => {
    const source = readFileSync(new URL(`../examples/${example.file}`, import.meta.url), 'utf8');

    test(`the README shows examples/${example.file} as it is`, () => {
      expect(readme).toContain(source.trim());
    });

    test(`examples/${example.file} runs: ${example.shows}, as its comments say`, async ({ redisUrl, redis }) => {
      const keys = await queueKeysIn(redis, example.queue);
      if (keys.length > 0) await redis.del(...keys);
      process.env.REDIS_URL = redisUrl;
      const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
      try {
        await import(`../examples/${example.file}`);
        expect(log.mock.calls).toEqual(example.logs);
      } finally {
        log.mockRestore();
      }
    });
  });
}
