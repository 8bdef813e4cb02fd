import { request as httpRequest, type IncomingMessage } from 'node:http';
import { defineKinds, Queue, type Logger, type RedisClient } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createDashboard, type DashboardAccess, type DashboardAuthorize } from '../src/index.ts';
import { startTestDashboard, TOKENS, type Session, type TestDashboard } from './dashboard-client.ts';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { to: { type: 'string' } } } } });

function openQueue(redis: RedisClient, queueName: string) {
  return new Queue({ redis, queue: queueName, kinds });
}

/** An SSO proxy's hook: the user its header names, operators and viewers by a list, anyone else refused. */
function ssoHook(asked: DashboardAccess[]): DashboardAuthorize {
  return (request: IncomingMessage, access) => {
    asked.push(access);
    const user = request.headers['x-sso-user'];
    if (user === 'olga@corp') return { allow: true, role: 'operator', label: user };
    if (user === 'vic@corp') return { allow: true, role: 'viewer', label: user };
    return { allow: false };
  };
}

/** The browser session (cookie and CSRF token) a hooked dashboard gives on the first read. */
async function browserSession(d: TestDashboard, user: string): Promise<Session> {
  const answer = await d.call('GET', 'api/session', { headers: { 'x-sso-user': user } });
  expect(answer.status).toBe(200);
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] as string;
  return { cookie, csrfToken: answer.body.csrfToken, role: answer.body.role };
}

/** A GET with the `Host` header the test chooses (fetch sets its own). */
function getWithHost(url: string, host: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL('api/session', url), { headers: { host, ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the authorize hook', () => {
  test('without tokens: it names the caller of every read and action, refuses whom it refuses, a viewer it names cannot act, and actions are audited under its label', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const asked: DashboardAccess[] = [];
    const d = await startTestDashboard([queue], { authorize: ssoHook(asked) });
    try {
      expect((await d.call('GET', 'api/overview')).status).toBe(403);
      expect((await d.call('GET', 'api/overview', { headers: { 'x-sso-user': 'mallory' } })).body.error.code).toBe('forbidden');
      const olga = await browserSession(d, 'olga@corp');
      expect((await d.call('GET', 'api/session', { session: olga, headers: { 'x-sso-user': 'olga@corp' } })).body).toMatchObject({ role: 'operator', label: 'olga@corp', loginRequired: false });
      const paused = await d.call('POST', `api/queues/${queueName}/pause`, { session: olga, headers: { 'x-sso-user': 'olga@corp' }, body: { kind: 'email' } });
      expect(paused.status).toBe(200);
      expect(asked.at(-1)).toEqual({ action: 'pause', queue: queueName, kind: 'email' });
      // The page's cookie and CSRF token are still needed: the hook is not even asked without them.
      const before = asked.length;
      expect((await d.call('POST', `api/queues/${queueName}/resume`, { session: olga, csrf: null, headers: { 'x-sso-user': 'olga@corp' } })).body.error.code).toBe('csrf');
      expect((await d.call('POST', `api/queues/${queueName}/resume`, { session: olga, origin: 'https://evil.example', headers: { 'x-sso-user': 'olga@corp' } })).body.error.code).toBe('origin');
      expect(asked.length).toBe(before);
      // The same browser session, with another user behind the proxy: the hook decides.
      const vic = await d.call('POST', `api/queues/${queueName}/resume`, { session: olga, headers: { 'x-sso-user': 'vic@corp' } });
      expect(vic.status).toBe(403);
      expect(vic.body.error.code).toBe('read_only');
      expect((await d.call('GET', `api/queues/${queueName}/audit`, { session: olga, headers: { 'x-sso-user': 'vic@corp' } })).status).toBe(200);
      expect(asked.at(-1)).toEqual({ action: 'read', queue: queueName });
      expect((await queue.stats()).pausedKinds).toEqual(['email']);
      expect((await queue.auditTrail()).entries.map((entry) => ({ who: entry.who, action: entry.action, target: entry.target }))).toEqual([
        { who: { role: 'operator', label: 'olga@corp' }, action: 'pause', target: { kind: 'email' } },
      ]);
    } finally {
      await d.close();
      await queue.close();
    }
  });

  test('with tokens: a token session still signs in and the hook is told of it; the hook decides', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const asked: DashboardAccess[] = [];
    // Token sessions pass as themselves; anyone else goes through the SSO header.
    const hook: DashboardAuthorize = async (request, access) => (access.session ? { allow: true, ...access.session } : ssoHook(asked)(request, access));
    const d = await startTestDashboard([queue], { credentials: { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer }, authorize: hook });
    try {
      const operator = await d.login(TOKENS.operator);
      expect((await d.call('GET', 'api/session', { session: operator })).body).toMatchObject({ role: 'operator', label: 'operator', loginRequired: true });
      expect((await d.call('POST', `api/queues/${queueName}/pause`, { session: operator })).status).toBe(200);
      const viewer = await d.login(TOKENS.viewer);
      expect((await d.call('POST', `api/queues/${queueName}/resume`, { session: viewer })).status).toBe(403);
      // No token session and no SSO user: refused, not sent to the login page.
      expect((await d.call('GET', 'api/overview')).status).toBe(403);
      const olga = await browserSession(d, 'olga@corp');
      expect((await d.call('POST', `api/queues/${queueName}/resume`, { session: olga, headers: { 'x-sso-user': 'olga@corp' } })).status).toBe(200);
      expect((await queue.auditTrail()).entries.map((entry) => `${entry.action} by ${entry.who.label}`)).toEqual(['resume by olga@corp', 'pause by operator']);
    } finally {
      await d.close();
      await queue.close();
    }
  });

  test('a hook that throws or answers nonsense gives 500 without its message; a hook counts as a login (any host, any address)', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const errors: unknown[] = [];
    const logger: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (fields) => void errors.push(fields) };
    const answers: Record<string, () => unknown> = {
      throws: () => {
        throw new Error('ldap://secret-host refused us');
      },
      rejects: () => Promise.reject(new Error('ldap://secret-host refused us')),
      nonsense: () => ({ allow: 'yes' }),
      badLabel: () => ({ allow: true, role: 'operator', label: 'tab\there' }),
      badRole: () => ({ allow: true, role: 'admin', label: 'x' }),
    };
    const hook: DashboardAuthorize = (request) => (answers[String(request.headers['x-case'])] ?? (() => ({ allow: true, role: 'viewer', label: 'reader' })))() as never;
    const d = await startTestDashboard([queue], { authorize: hook, logger });
    try {
      for (const name of Object.keys(answers)) {
        const answer = await d.call('GET', 'api/overview', { headers: { 'x-case': name } });
        expect(answer.status, name).toBe(500);
        expect(answer.body.error.code).toBe('authorize_failed');
        expect(JSON.stringify(answer.body)).not.toContain('secret-host');
      }
      expect(errors.length).toBe(Object.keys(answers).length);
      // Beyond loopback: a Host no loopback dashboard answers to, and a wildcard address to listen on.
      expect(await getWithHost(d.url, 'jobs.corp.example', {})).toBe(200);
      const wide = createDashboard({ queues: [queue], authorize: hook, sampleIntervalMs: 0 });
      const server = await wide.listen({ port: 0, host: '0.0.0.0' });
      await server.close();
      expect(() => createDashboard({ queues: [queue], authorize: 'yes' as never })).toThrow(/authorize/);
    } finally {
      await d.close();
      await queue.close();
    }
  });
});
