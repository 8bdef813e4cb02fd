import { readFileSync } from 'node:fs';
import { redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/enqueue.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README example', () => {
  test('the README shows examples/enqueue.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/enqueue.ts runs: typed errors for bad input, the job readable by id', async ({ redisUrl, redis }) => {
    await redis.del('queue:{example-mail}:idem:invoice:cus_42:2026-11');
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    await import('../examples/enqueue.ts');
    const [[issues], [job]] = log.mock.calls as [[{ pointer: string }[]], [{ status: string; kind: string }]];
    log.mockRestore();
    expect(issues.map((issue) => issue.pointer)).toEqual(['/recipient']);
    expect(job).toMatchObject({ status: 'pending', kind: 'email' });
  });
});
