import { readFileSync } from 'node:fs';
import { redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/dashboard.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README dashboard example', () => {
  test('the README shows examples/dashboard.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/dashboard.ts runs: it serves both queues on loopback', async ({ redisUrl }) => {
    process.env.REDIS_URL = redisUrl;
    process.env.PORT = '0';
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const before = process.listeners('SIGTERM');
    const { dashboard, server, queues } = await import('../examples/dashboard.ts');
    try {
      expect(log).toHaveBeenCalledWith(`dashboard on ${server.url}`);
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const overview = (await (await fetch(new URL('api/overview', server.url))).json()) as { queues: { name: string }[] };
      expect(overview.queues.map((queue) => queue.name)).toEqual(['example-billing', 'example-mail']);
    } finally {
      await Promise.all([dashboard.close(), ...queues.map((queue) => queue.close())]);
      log.mockRestore();
      delete process.env.PORT;
      for (const listener of process.listeners('SIGTERM')) if (!before.includes(listener)) process.off('SIGTERM', listener);
    }
  });
});
