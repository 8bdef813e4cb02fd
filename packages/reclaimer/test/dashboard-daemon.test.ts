import { defineKinds, Queue } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect, test as plainTest } from 'vitest';
import { assertDaemonDashboard } from '../src/dashboard/daemon-dashboard.ts';
import { UsageError } from '../src/usage-error.ts';
import { BIN, runCli, startDaemon } from './cli.ts';

/** Tokens for tests (long enough to be accepted). */
const TOKENS = { operator: 'operator-token-0123456789' } as const;

const kinds = defineKinds({ task: { schema: { type: 'object' } } });

describe('jobs-reclaimer --dashboard-port', () => {
  plainTest('a short JOBS_DASHBOARD_SESSION_SECRET is a usage error that names the variable', () => {
    expect(() => assertDaemonDashboard('127.0.0.1', { JOBS_DASHBOARD_SESSION_SECRET: 'short' })).toThrow(UsageError);
    expect(() => assertDaemonDashboard('127.0.0.1', { JOBS_DASHBOARD_SESSION_SECRET: 'short' })).toThrow(/JOBS_DASHBOARD_SESSION_SECRET/);
  });

  test('refuses to serve the dashboard to other machines without a token from the environment, and short tokens (exit 2)', async () => {
    const open = await runCli(BIN.reclaimer, ['--dashboard-port', '0', '--dashboard-host', '0.0.0.0', '--once']);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/--dashboard-host 0\.0\.0\.0 is reachable from other machines: set JOBS_DASHBOARD_TOKEN/);
    const short = await runCli(BIN.reclaimer, ['--dashboard-port', '0', '--once'], { JOBS_DASHBOARD_TOKEN: 'short' });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/JOBS_DASHBOARD_TOKEN: a dashboard token needs at least 16 characters/);
  });

  test('serves the queues it sweeps behind the token, and never logs the token', async ({ redisUrl, redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('task', {});
    const daemon = startDaemon(['--queue', queueName, '--interval-ms', '200', '--dashboard-port', '0', '--metrics-port', '0'], { REDIS_URL: redisUrl, JOBS_DASHBOARD_TOKEN: TOKENS.operator });
    try {
      const line = await daemon.waitForLog((entry) => entry.msg === 'serving the dashboard');
      expect(line.login).toBe('token');
      const url = String(line.url);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect((await fetch(new URL('api/overview', url))).status).toBe(401);
      const origin = url.slice(0, -1);
      const login = await fetch(new URL('login', url), { method: 'POST', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${TOKENS.operator}`, redirect: 'manual' });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
      // The reclaimer finds its queues at its first sweep; the dashboard shows what it sweeps.
      await expect
        .poll(async () => ((await (await fetch(new URL('api/overview', url), { headers: { cookie } })).json()) as { queues: { name: string; stats: { pendingDepth: number } }[] }).queues)
        .toEqual([expect.objectContaining({ name: queueName, stats: expect.objectContaining({ pendingDepth: 1 }) })]);
      await daemon.waitForLog((entry) => entry.msg === 'dashboard login');
    } finally {
      expect(await daemon.stop()).toBe(0);
    }
    expect(JSON.stringify(daemon.logs()) + daemon.stderr()).not.toContain(TOKENS.operator);
  });

  test('two daemons given the same JOBS_DASHBOARD_SESSION_SECRET accept each other\'s sessions; a short secret exits 2', async ({ redisUrl, queueName }) => {
    const short = await runCli(BIN.reclaimer, ['--dashboard-port', '0', '--once'], { JOBS_DASHBOARD_TOKEN: TOKENS.operator, JOBS_DASHBOARD_SESSION_SECRET: 'short' });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/JOBS_DASHBOARD_SESSION_SECRET: a dashboard session secret needs at least 32 characters/);
    const env = { REDIS_URL: redisUrl, JOBS_DASHBOARD_TOKEN: TOKENS.operator, JOBS_DASHBOARD_SESSION_SECRET: 'shared-by-both-replicas-0123456789abcdef' };
    const args = ['--queue', queueName, '--interval-ms', '200', '--dashboard-port', '0', '--metrics-port', '0'];
    const daemons = [startDaemon(args, env), startDaemon(args, env)];
    try {
      const [first, second] = await Promise.all(daemons.map(async (daemon) => String((await daemon.waitForLog((entry) => entry.msg === 'serving the dashboard')).url)));
      const login = await fetch(new URL('login', first), { method: 'POST', headers: { origin: first!.slice(0, -1), 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${TOKENS.operator}`, redirect: 'manual' });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const session = (await (await fetch(new URL('api/session', second), { headers: { cookie } })).json()) as { role: string };
      expect(session.role).toBe('operator');
    } finally {
      for (const daemon of daemons) expect(await daemon.stop()).toBe(0);
    }
    for (const daemon of daemons) expect(JSON.stringify(daemon.logs()) + daemon.stderr()).not.toContain('shared-by-both-replicas');
  });
});
