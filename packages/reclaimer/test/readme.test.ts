import { readFileSync } from 'node:fs';
import { redisTest as test, waitFor } from '@jobs/testing';
import { Queue, defineKinds } from '@jobs/core';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/reclaimer.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README example', () => {
  test('the README shows examples/reclaimer.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/reclaimer.ts runs: it sweeps its queues and serves its metrics', async ({ redisUrl, redis }) => {
    const queue = new Queue({ redis, queue: 'example-mail', kinds: defineKinds({}), visibilityMs: 1 });
    await redis.hset('queue:{example-mail}:job:crashed1', { id: 'crashed1', payload: '{"kind":"email"}', status: 'pending', attempts: '0' });
    await redis.lpush('queue:{example-mail}:pending', 'crashed1');
    await queue.claim();
    process.env.REDIS_URL = redisUrl;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const before = process.listeners('SIGTERM');
    const { reclaimer, server } = await import('../examples/reclaimer.ts');
    try {
      await waitFor(() => log.mock.calls.some(([line]) => line === 'example-mail: 1 back to pending, 0 dead-lettered'));
      const metrics = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
      expect(metrics).toContain('jobs_reclaimer_jobs_total{queue="example-mail",action="reclaimed"} 1');
      expect(write.mock.calls.some(([line]) => String(line).includes('"msg":"swept"'))).toBe(true);
    } finally {
      await Promise.all([reclaimer.stop(), server.close()]);
      log.mockRestore();
      write.mockRestore();
      for (const listener of process.listeners('SIGTERM')) if (!before.includes(listener)) process.off('SIGTERM', listener);
      await redis.del('queue:{example-mail}:job:crashed1', 'queue:{example-mail}:pending', 'queue:{example-mail}:stats', 'queue:{example-mail}:reclaim-cursor');
      await queue.close();
    }
  });
});
