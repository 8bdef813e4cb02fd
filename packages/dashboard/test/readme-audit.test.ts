import { readFileSync } from 'node:fs';
import { redisTest as test } from '@jobs/testing';
import { describe, expect, vi } from 'vitest';

const example = readFileSync(new URL('../examples/sso-audit.ts', import.meta.url), 'utf8');
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

describe('README example of the authorize hook and the audit trail', () => {
  test('the README shows examples/sso-audit.ts as it is', () => {
    expect(readme).toContain(example.trim());
  });

  test('examples/sso-audit.ts runs: the proxy user is named by the hook, refused without one, and its action is in the trail', async ({ redisUrl }) => {
    process.env.REDIS_URL = redisUrl;
    process.env.PORT = '0';
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const before = process.listeners('SIGTERM');
    const { dashboard, server, queues, lastActions } = await import('../examples/sso-audit.ts');
    try {
      expect(log).toHaveBeenCalledWith(`dashboard on ${server.url}`);
      expect((await fetch(new URL('api/overview', server.url))).status).toBe(403);
      const olga = { 'x-forwarded-user': 'olga@example.com' };
      const session = await fetch(new URL('api/session', server.url), { headers: olga });
      const { label, role, csrfToken } = (await session.json()) as { label: string; role: string; csrfToken: string };
      expect({ label, role }).toEqual({ label: 'olga@example.com', role: 'operator' });
      const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const origin = server.url.slice(0, -1);
      const paused = await fetch(new URL('api/queues/example-sso/pause', server.url), { method: 'POST', headers: { ...olga, cookie, origin, 'x-csrf-token': csrfToken } });
      expect(paused.status).toBe(200);
      expect((await lastActions())[0]).toMatch(/^\d{4}-\S+Z olga@example\.com \(operator\) pause x1$/);
    } finally {
      await (queues[0] as (typeof queues)[number]).resume();
      await Promise.all([dashboard.close(), ...queues.map((queue) => queue.close())]);
      log.mockRestore();
      delete process.env.PORT;
      for (const listener of process.listeners('SIGTERM')) if (!before.includes(listener)) process.off('SIGTERM', listener);
    }
  });
});
