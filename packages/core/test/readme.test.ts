import { readFileSync } from 'node:fs';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/queue.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const eventLogExample = readFileSync(new URL('../examples/event-log.ts', import.meta.url), 'utf8');
const operatorExample = readFileSync(new URL('../examples/operator-verbs.ts', import.meta.url), 'utf8');
const historyExample = readFileSync(new URL('../examples/history.ts', import.meta.url), 'utf8');

describe('README example', () => {
  test('the README shows examples/queue.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/queue.ts runs: it enqueues, claims, completes and prints the stats', async ({ redisUrl, redis }) => {
    await redis.del('queue:{example-core}:idem:welcome:alice');
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    await import('../examples/queue.ts');
    const [stats, id] = log.mock.calls[0] as [{ completedTotal: number }, string];
    log.mockRestore();
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(stats.completedTotal).toBeGreaterThanOrEqual(1);
    expect(await redis.hget(`queue:{example-core}:job:${id}`, 'status')).toBe('completed');
  });

  test('the README shows examples/event-log.ts as it is', () => {
    expect(readme).toContain(eventLogExample.trim());
  });

  test('examples/event-log.ts runs: its follower sees the job enqueued, claimed and completed, and so does its timeline', async ({ redisUrl }) => {
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    await import('../examples/event-log.ts');
    const [seen, timeline] = log.mock.calls[0] as [string[], string[]];
    log.mockRestore();
    expect(seen).toEqual(['enqueued #0 by -', 'claimed #1 by example-worker', 'completed #1 by example-worker']);
    expect(timeline).toEqual(['enqueued', 'claimed', 'completed']);
  });
});

describe('README flow example', () => {
  const flowExample = readFileSync(new URL('../examples/flow.ts', import.meta.url), 'utf8');

  test('the README shows examples/flow.ts as it is', () => {
    expect(readme).toContain(flowExample.trim());
  });

  test('examples/flow.ts runs: the zip completes after both thumbnails, with their results', async ({ redisUrl, redis }) => {
    for (const key of await queueKeysIn(redis, 'example-flow')) await redis.del(key);
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    await import('../examples/flow.ts');
    const [[job]] = log.mock.calls as [[{ status: string; result: { files: unknown[] } }]];
    log.mockRestore();
    expect(job.status).toBe('completed');
    expect(job.result.files).toEqual([{ url: 'https://cdn.example.com/a.png' }, { url: 'https://cdn.example.com/b.png' }]);
  });

  test('the README shows examples/operator-verbs.ts as it is', () => {
    expect(readme).toContain(operatorExample.trim());
  });

  test('examples/operator-verbs.ts runs: it promotes, reprioritizes, removes and pauses with a label', async ({ redisUrl }) => {
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    await import('../examples/operator-verbs.ts');
    const [shown] = log.mock.calls[0] as [Record<string, unknown>];
    log.mockRestore();
    expect(shown).toMatchObject({ promoted: { promoted: true }, changed: { changed: true, priority: 10 }, removed: { removed: true }, newJob: true, pausedBy: 'alice@ops' });
    expect(shown.prioritized).toHaveLength(1);
  });

  test('the README shows examples/history.ts as it is', () => {
    expect(readme).toContain(historyExample.trim());
  });

  test('examples/history.ts runs: the last hour has a column entry per minute and counts its enqueues', async ({ redisUrl, redis }) => {
    await redis.del('queue:{example-history}:metrics:email', 'queue:{example-history}:metrics-kinds');
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    await import('../examples/history.ts');
    const [kinds, stepMs, steps, enqueued, p95] = log.mock.calls[0] as [string[], number, number, number, number | null];
    log.mockRestore();
    expect([kinds, stepMs, steps, enqueued, p95]).toEqual([['email'], 60_000, 60, 3, null]);
  });
});
