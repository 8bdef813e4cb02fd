import { readFileSync } from 'node:fs';
import { redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/schedules.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README schedules example', () => {
  test('the README shows examples/schedules.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/schedules.ts runs: the heartbeat ticks once, the digest shows its next run', async ({ redisUrl }) => {
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    await import('../examples/schedules.ts');
    const lines = log.mock.calls.map((call) => call.map(String).join(' '));
    log.mockRestore();
    expect(lines[0]).toMatch(/^daily-digest active \d{4}-\d\d-\d\dT0[67]:00:00\.000Z$/);
    expect(lines[1]).toBe('heartbeat done null');
    expect(lines[2]).toMatch(/^sched:heartbeat:\d{13}$/);
  });
});
