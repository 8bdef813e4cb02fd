import { readFileSync } from 'node:fs';
import { redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

/** The README's examples of the dashboard in a server of yours, one per way to mount it. */
const EMBEDDINGS = ['embed-node-http', 'embed-express', 'embed-fastify', 'embed-hono'] as const;

describe('README examples of the dashboard in your server', () => {
  test.for(EMBEDDINGS)('the README shows examples/%s.ts as it is', (name) => {
    expect(readme).toContain(readFileSync(new URL(`../examples/${name}.ts`, import.meta.url), 'utf8').trim());
  });

  test.for(EMBEDDINGS)('examples/%s.ts runs: the dashboard answers under /admin/jobs on loopback, the app beside it', async (name, { redisUrl }) => {
    process.env.REDIS_URL = redisUrl;
    process.env.PORT = '0';
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const before = process.listeners('SIGTERM');
    const example = (await import(`../examples/${name}.ts`)) as { stop(): Promise<void> };
    try {
      const url = await vi.waitFor(
        () => {
          const line = log.mock.calls.map(([text]) => String(text)).find((text) => text.startsWith('dashboard on '));
          expect(line).toMatch(/^dashboard on http:\/\/127\.0\.0\.1:\d+\/admin\/jobs\/$/);
          return (line as string).slice('dashboard on '.length);
        },
        { timeout: 15_000, interval: 20 },
      );
      const overview = await fetch(new URL('api/overview', url));
      expect(overview.status).toBe(200);
      expect(((await overview.json()) as { queues: { name: string }[] }).queues.map((queue) => queue.name)).toEqual(['example-mail']);
      expect((await fetch(url)).headers.get('content-type')).toMatch(/^text\/html/);
      const outside = await fetch(new URL('/api/overview', url));
      expect(outside.status).toBe(404);
    } finally {
      await example.stop();
      log.mockRestore();
      delete process.env.PORT;
      for (const listener of process.listeners('SIGTERM')) if (!before.includes(listener)) process.off('SIGTERM', listener);
    }
  });
});
