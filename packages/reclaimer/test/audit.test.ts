import { defineKinds, Queue } from '@jobs/core';
import { startRedisServer } from '@jobs/dev-redis';
import { redisTest as test } from '@jobs/testing';
import { Redis } from 'ioredis';
import { jobsAclRules } from '../src/acl.ts';
import { describe, expect, test as plainTest } from 'vitest';
import { cliLabel } from '../src/admin/run-audit.ts';
import { assertDaemonDashboard } from '../src/dashboard/daemon-dashboard.ts';
import { BIN, runCli, startDaemon } from './cli.ts';

const kinds = defineKinds({ task: { schema: { type: 'object' } } });

describe('the audit trail in jobsctl', () => {
  test("jobsctl's acting commands record themselves (role cli, label user@host, count), and jobsctl audit prints the trail", async ({ redis, redisUrl, queueName }) => {
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const queue = new Queue({ redis, queue: queueName, kinds });
    const first = await queue.enqueue('task', {}, { maxAttempts: 1 });
    await queue.enqueue('task', {}, { maxAttempts: 1 });
    for (const job of await queue.claim({ max: 2 })) expect(await queue.fail(job, new Error('boom'))).toBe('failed');
    for (const args of [['pause'], ['resume'], ['retry', first], ['retry', '--all-failed'], ['cancel', first], ['cancel', first], ['purge', '--yes']]) {
      const run = await runCli(BIN.jobsctl, args, env);
      expect(run.stderr, args.join(' ')).not.toMatch(/warning/);
    }
    const label = cliLabel();
    const json = await runCli(BIN.jobsctl, ['audit', '--json'], env);
    expect(json.code).toBe(0);
    const entries = (JSON.parse(json.stdout) as { who: unknown; action: string; target: unknown; count: number; error?: string }[]).map(({ who, action, target, count, error }) => ({ who, action, target, count, ...(error && { error }) }));
    expect(entries).toEqual([
      { who: { role: 'cli', label }, action: 'purge', target: {}, count: 1 },
      { who: { role: 'cli', label }, action: 'cancel', target: { id: first }, count: 0, error: 'refused' },
      { who: { role: 'cli', label }, action: 'cancel', target: { id: first }, count: 1 },
      { who: { role: 'cli', label }, action: 'redrive-failed', target: {}, count: 1 },
      { who: { role: 'cli', label }, action: 'retry', target: { id: first }, count: 1 },
      { who: { role: 'cli', label }, action: 'resume', target: {}, count: 1 },
      { who: { role: 'cli', label }, action: 'pause', target: {}, count: 1 },
    ]);
    const table = await runCli(BIN.jobsctl, ['audit', '--limit', '2'], env);
    const [header, newest, next, ...rest] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^AT\s+ROLE\s+WHO\s+ACTION\s+TARGET\s+COUNT\s+ERROR$/);
    expect(newest).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s+cli\\s+${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+purge\\s+-\\s+1\\s+-$`));
    expect(next).toMatch(new RegExp(`cancel\\s+id ${first}\\s+0\\s+refused$`));
    expect(rest).toEqual([]);
    expect((await runCli(BIN.jobsctl, ['audit', '--limit', '0'], env)).code).toBe(2);
    await queue.close();
  });

  test("jobsctl's promote, priority and remove record themselves too, a refused one with count 0", async ({ redis, redisUrl, queueName }) => {
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const queue = new Queue({ redis, queue: queueName, kinds });
    const later = await queue.enqueue('task', {}, { delayMs: 3_600_000 });
    for (const args of [['promote', later], ['priority', later, '7'], ['remove', later], ['remove', later]]) {
      const run = await runCli(BIN.jobsctl, args, env);
      expect(run.stderr, args.join(' ')).not.toMatch(/warning/);
    }
    const json = await runCli(BIN.jobsctl, ['audit', '--json'], env);
    const entries = (JSON.parse(json.stdout) as { action: string; target: unknown; count: number; error?: string }[]).map(({ action, target, count, error }) => ({ action, target, count, ...(error && { error }) }));
    expect(entries).toEqual([
      { action: 'delete', target: { id: later }, count: 0, error: 'refused' },
      { action: 'delete', target: { id: later }, count: 1 },
      { action: 'priority', target: { id: later }, count: 1 },
      { action: 'promote', target: { id: later }, count: 1 },
    ]);
    await queue.close();
  });

  test('the daemon signs in JOBS_DASHBOARD_TOKENS users under their labels, and jobsctl audit shows their actions', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('task', {});
    const token = 'alice-token-0123456789';
    const daemon = startDaemon(['--queue', queueName, '--interval-ms', '200', '--dashboard-port', '0', '--metrics-port', '0'], { REDIS_URL: redisUrl, JOBS_DASHBOARD_TOKENS: `alice:operator:${token},bob:viewer:bob-token-0123456789ab` });
    try {
      const url = String((await daemon.waitForLog((entry) => entry.msg === 'serving the dashboard')).url);
      const origin = url.slice(0, -1);
      const login = await fetch(new URL('login', url), { method: 'POST', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${token}`, redirect: 'manual' });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const session = (await (await fetch(new URL('api/session', url), { headers: { cookie } })).json()) as { label: string; csrfToken: string };
      expect(session.label).toBe('alice');
      await expect.poll(async () => ((await (await fetch(new URL('api/overview', url), { headers: { cookie } })).json()) as { queues: unknown[] }).queues.length).toBe(1);
      const paused = await fetch(new URL(`api/queues/${queueName}/pause`, url), { method: 'POST', headers: { cookie, origin, 'x-csrf-token': session.csrfToken } });
      expect(paused.status).toBe(200);
    } finally {
      expect(await daemon.stop()).toBe(0);
    }
    const audit = await runCli(BIN.jobsctl, ['audit', '--json', '-q', queueName], { REDIS_URL: redisUrl });
    expect(JSON.parse(audit.stdout)).toEqual([expect.objectContaining({ who: { role: 'operator', label: 'alice' }, action: 'pause', count: 1 })]);
    expect(JSON.stringify(daemon.logs()) + daemon.stderr()).not.toContain(token);
    await queue.close();
  });

  plainTest('a malformed JOBS_DASHBOARD_TOKENS is a usage error that names the variable', () => {
    expect(() => assertDaemonDashboard('127.0.0.1', { JOBS_DASHBOARD_TOKENS: 'alice:root:alice-token-0123456789' })).toThrow(/JOBS_DASHBOARD_TOKENS/);
    expect(() => assertDaemonDashboard('127.0.0.1', { JOBS_DASHBOARD_TOKENS: 'alice:operator:short' })).toThrow(/JOBS_DASHBOARD_TOKENS entry 1/);
  });

  plainTest("a tenant's ACL user (jobsctl acl) writes and reads its queue's audit trail, a partitioned queue's included", async () => {
    const server = await startRedisServer({ name: 'acl-audit' });
    const admin = new Redis(server.url);
    try {
      await admin.acl('SETUSER', 'orders-app', 'on', '>pw', ...jobsAclRules(['orders', 'billing'], { partitions: 2 }));
      const url = server.url.replace('redis://', 'redis://orders-app:pw@');
      const queue = new Queue({ redis: url, queue: 'orders', kinds, partitions: 2 });
      await queue.recordAudit({ role: 'operator', label: 'alice', action: 'pause', count: 1 });
      expect((await queue.auditTrail()).entries).toMatchObject([{ who: { label: 'alice' }, action: 'pause' }]);
      // The same rules without XREVRANGE cannot read it: the rule is what lets the dashboard show the trail.
      await admin.acl('SETUSER', 'orders-app', '-xrevrange');
      expect(await queue.auditTrail().catch((error: unknown) => error)).toMatchObject({ code: 'JOBS_REDIS_NOPERM' });
      await queue.close();
    } finally {
      admin.disconnect();
      await server.stop();
    }
  });
});
