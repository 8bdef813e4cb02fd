import type { IncomingMessage } from 'node:http';
import { defineKinds, isJobsError, Queue } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect, test as plainTest } from 'vitest';
import { credentialsFromEnv, DASHBOARD_TOKEN_ENV } from '../src/index.ts';
import { SESSION_COOKIE, SessionSigner } from '../src/sessions.ts';
import { startTestDashboard, TOKENS, type TestDashboard } from './dashboard-client.ts';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { to: { type: 'string' } } } } });
const SECRET = 'a-session-secret-shared-by-replicas-0123456789';

/** A request carrying `cookie` as the session cookie's value. */
function requestWith(value: string): IncomingMessage {
  return { headers: { cookie: `other=1; ${SESSION_COOKIE}=${value}` } } as unknown as IncomingMessage;
}

/** The cookie's value from a `Set-Cookie` line. */
function valueOf(setCookie: string): string {
  return (setCookie.split(';')[0] as string).slice(SESSION_COOKIE.length + 1);
}

/** Signs in `count` times with `token`, a few sign-ins at a time (each one POST, as a browser's form sends it). */
async function signInMany(d: TestDashboard, token: string, count: number): Promise<void> {
  let left = count;
  const origin = d.url.slice(0, -1);
  const lane = async (): Promise<void> => {
    while (left > 0) {
      left -= 1;
      const answer = await fetch(new URL('login', d.url), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin }, body: `token=${token}`, redirect: 'manual' });
      await answer.arrayBuffer();
      if (answer.status !== 303 || !answer.headers.get('set-cookie')) throw new Error(`sign-in answered ${answer.status}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
}

describe('dashboard sessions', () => {
  test("10,001 viewer sign-ins leave the operator's session working, actions included", async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const d = await startTestDashboard([queue], { credentials: { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer } });
    try {
      const operator = await d.login(TOKENS.operator);
      const firstViewer = await d.login(TOKENS.viewer);
      await signInMany(d, TOKENS.viewer, 10_001);
      const session = await d.call('GET', 'api/session', { session: operator });
      expect(session.status).toBe(200);
      expect(session.body).toMatchObject({ role: 'operator', csrfToken: operator.csrfToken });
      expect((await d.call('POST', `api/queues/${queueName}/pause`, { session: operator })).status).toBe(200);
      expect((await queue.stats()).paused).toBe(true);
      expect((await d.call('GET', 'api/overview', { session: firstViewer })).status).toBe(200);
    } finally {
      await d.close();
      await queue.close();
    }
  }, 300_000);

  test('a session cookie changed in any part is refused: label, id, sign-in time, expiry, signature', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const d = await startTestDashboard([queue], { credentials: { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer } });
    try {
      const viewer = await d.login(TOKENS.viewer);
      const [label, id, started, expires, mac] = valueOf(viewer.cookie).split('.') as [string, string, string, string, string];
      expect(Buffer.from(label, 'base64url').toString()).toBe('viewer');
      const operator = Buffer.from('operator').toString('base64url');
      const flip = (text: string): string => (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
      const forged = [
        `${operator}.${id}.${started}.${expires}.${mac}`,
        `${label}.${flip(id)}.${started}.${expires}.${mac}`,
        `${label}.${id}.${Number(started) + 86_400_000}.${expires}.${mac}`,
        `${label}.${id}.${started}.${Number(expires) + 86_400_000}.${mac}`,
        `${label}.${id}.${started}.${expires}.${flip(mac)}`,
        `${label}.${id}.${started}.${expires}.${mac}x`,
        `${label}.${id}.${started}.${expires}`,
        `viewer.${id}.${expires}.${mac}`,
        'nonsense',
      ];
      for (const value of forged) {
        const answer = await d.call('GET', 'api/overview', { session: { ...viewer, cookie: `${SESSION_COOKIE}=${value}` } });
        expect(answer.status, value).toBe(401);
      }
      expect((await d.call('GET', 'api/overview', { session: viewer })).status).toBe(200);
    } finally {
      await d.close();
      await queue.close();
    }
  });

  test('signing out ends the session: its cookie is refused afterwards, the same role signed in elsewhere is not', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const d = await startTestDashboard([queue], { credentials: { operatorToken: TOKENS.operator } });
    try {
      const leaving = await d.login(TOKENS.operator);
      const staying = await d.login(TOKENS.operator);
      const out = await d.call('POST', 'logout', { session: leaving });
      expect(out.status).toBe(200);
      expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
      expect((await d.call('GET', 'api/overview', { session: leaving })).status).toBe(401);
      expect((await d.call('GET', 'api/overview', { session: staying })).status).toBe(200);
    } finally {
      await d.close();
      await queue.close();
    }
  });

  test("replicas sharing the session secret accept each other's sessions; another secret or a changed token does not", async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const credentials = { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer, sessionSecret: SECRET };
    const started: TestDashboard[] = [];
    const start = async (options: Parameters<typeof startTestDashboard>[1]) => {
      const d = await startTestDashboard([queue], options);
      started.push(d);
      return d;
    };
    try {
      const first = await start({ credentials });
      const second = await start({ credentials });
      const operator = await first.login(TOKENS.operator);
      const viewer = await first.login(TOKENS.viewer);
      // The cookie and CSRF token the first replica issued open the second, actions included.
      expect((await second.call('GET', 'api/session', { session: operator })).body).toMatchObject({ role: 'operator', csrfToken: operator.csrfToken });
      expect((await second.call('POST', `api/queues/${queueName}/pause`, { session: operator })).status).toBe(200);
      expect((await queue.stats()).paused).toBe(true);
      const otherSecret = await start({ credentials: { ...credentials, sessionSecret: `${SECRET}-other` } });
      expect((await otherSecret.call('GET', 'api/overview', { session: operator })).status).toBe(401);
      const newToken = await start({ credentials: { ...credentials, operatorToken: `${TOKENS.operator}-rotated` } });
      expect((await newToken.call('GET', 'api/overview', { session: operator })).status).toBe(401);
      expect((await newToken.call('GET', 'api/overview', { session: viewer })).status).toBe(200);
      const noSecret = await start({ credentials: { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer } });
      expect((await noSecret.call('GET', 'api/overview', { session: operator })).status).toBe(401);
    } finally {
      await Promise.all(started.map((d) => d.close()));
      await queue.close();
    }
  });

  plainTest('a session expires its TTL after its last use, is renewed at most once a minute while used, and an expired cookie is refused', () => {
    let now = 1_000_000;
    const signer = new SessionSigner({ ttlMs: 3_600_000, credentials: { operatorToken: TOKENS.operator }, secret: SECRET, now: () => now });
    const session = signer.create('operator');
    const cookie = valueOf(signer.cookie(session, '/', false));
    expect(signer.fromRequest(requestWith(cookie))).toEqual(session);
    now += 30_000;
    expect(signer.renewed(session)).toBeUndefined();
    now += 60_000;
    const renewed = signer.renewed(session);
    expect(renewed).toMatchObject({ id: session.id, csrfToken: session.csrfToken, expiresAtMs: now + 3_600_000 });
    const renewedCookie = valueOf(signer.cookie(renewed!, '/', false));
    // Past the first cookie's expiry, within the renewed one's.
    now = session.expiresAtMs;
    expect(signer.fromRequest(requestWith(cookie))).toBeUndefined();
    expect(signer.fromRequest(requestWith(renewedCookie))?.id).toBe(session.id);
    now = renewed!.expiresAtMs + 1;
    expect(signer.fromRequest(requestWith(renewedCookie))).toBeUndefined();
  });

  plainTest('a signed-out session stays refused through its renewals, and viewers signing out never make room for it', () => {
    let now = 1_000_000;
    const signer = new SessionSigner({ ttlMs: 3_600_000, credentials: { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer }, now: () => now });
    const operator = signer.create('operator');
    now += 120_000;
    const renewedCookie = valueOf(signer.cookie(signer.renewed(operator)!, '/', false));
    signer.revoke(operator);
    for (let i = 0; i < 10_001; i++) signer.revoke(signer.create('viewer'));
    expect(signer.fromRequest(requestWith(valueOf(signer.cookie(operator, '/', false))))).toBeUndefined();
    expect(signer.fromRequest(requestWith(renewedCookie))).toBeUndefined();
  });

  plainTest('the session secret comes from JOBS_DASHBOARD_SESSION_SECRET and must be 32 characters or more', () => {
    expect(DASHBOARD_TOKEN_ENV.sessionSecret).toBe('JOBS_DASHBOARD_SESSION_SECRET');
    expect(credentialsFromEnv({ JOBS_DASHBOARD_TOKEN: TOKENS.operator, JOBS_DASHBOARD_SESSION_SECRET: SECRET })).toEqual({ operatorToken: TOKENS.operator, sessionSecret: SECRET });
    const short = (() => {
      try {
        return credentialsFromEnv({ JOBS_DASHBOARD_TOKEN: TOKENS.operator, JOBS_DASHBOARD_SESSION_SECRET: 'short' });
      } catch (error) {
        return error;
      }
    })();
    expect(isJobsError(short, 'JOBS_INVALID_ARGUMENT')).toBe(true);
    expect(short).toMatchObject({ field: 'sessionSecret' });
  });
});
