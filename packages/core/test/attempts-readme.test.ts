import { readFileSync } from 'node:fs';
import { redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('../examples/attempts.ts', import.meta.url), 'utf8');

describe('README: attempts, errors and logs', () => {
  test('the README shows examples/attempts.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/attempts.ts runs: two attempts with their outcome, worker and error chain, and their log lines', async ({ redisUrl, redis }) => {
    await redis.del('queue:{example-attempts}:pending');
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    await import('../examples/attempts.ts');
    const [code, attempts, lines] = log.mock.calls[0] as [string, string[], string[]];
    log.mockRestore();
    expect(code).toBe('MAILBOX_FULL');
    expect(attempts).toHaveLength(2);
    expect(attempts[0]).toMatch(/^#1 retried by example-worker in \d+ ms: mailbox full <- 552 5\.2\.2$/);
    expect(attempts[1]).toMatch(/^#2 failed by example-worker in \d+ ms: mailbox full <- 552 5\.2\.2$/);
    expect(lines).toEqual(['#1 connecting to smtp (attempt 1)', '#2 connecting to smtp (attempt 2)']);
  });
});
