import type { IncomingMessage } from 'node:http';
import { defineKinds, isJobsError, Queue } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect, test as plainTest } from 'vitest';
import { createDashboard, credentialsFromEnv, DASHBOARD_TOKEN_ENV, jobQueueSource } from '../src/index.ts';
import { SESSION_COOKIE, SessionSigner } from '../src/sessions.ts';
import { startTestDashboard, TOKENS, type TestDashboard } from './dashboard-client.ts';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { to: { type: 'string' } } } } });
const SECRET = 'a-session-secret-shared-by-replicas-0123456789';
/** A source with no queues: for option checks that fail before any is read. */
const emptySource = jobQueueSource([]);

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

  test("a labelled token's cookie opens another replica with the same secret, which records its actions under that label; a removed token ends its sessions", async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const tokens = [
      { token: 'alice-token-0123456789', role: 'operator' as const, label: 'alice' },
      { token: 'dave-token-0123456789a', role: 'operator' as const, label: 'dave' },
    ];
    const a = await startTestDashboard([queue], { credentials: { tokens, sessionSecret: SECRET } });
    const b = await startTestDashboard([queue], { credentials: { tokens, sessionSecret: SECRET } });
    const withoutDave = await startTestDashboard([queue], { credentials: { tokens: tokens.slice(0, 1), sessionSecret: SECRET } });
    try {
      const alice = await a.login('alice-token-0123456789');
      const dave = await a.login('dave-token-0123456789a');
      expect((await b.call('GET', 'api/session', { session: dave })).body).toMatchObject({ role: 'operator', label: 'dave', csrfToken: dave.csrfToken });
      expect((await b.call('POST', `api/queues/${queueName}/pause`, { session: dave })).status).toBe(200);
      expect((await queue.auditTrail()).entries[0]).toMatchObject({ who: { role: 'operator', label: 'dave' }, action: 'pause', count: 1 });
      expect((await withoutDave.call('GET', 'api/overview', { session: dave })).status).toBe(401);
      expect((await withoutDave.call('GET', 'api/session', { session: alice })).body).toMatchObject({ label: 'alice' });
    } finally {
      await Promise.all([a.close(), b.close(), withoutDave.close()]);
      await queue.close();
    }
  });

  plainTest('a session ends sessionMaxAgeMs after its sign-in however often it is renewed (an injected clock)', () => {
    let now = 1_000_000;
    const signer = new SessionSigner({ ttlMs: 3_600_000, maxAgeMs: 2 * 3_600_000, credentials: { operatorToken: TOKENS.operator }, secret: SECRET, now: () => now });
    let session = signer.create('operator');
    const started = session.startedAtMs;
    // Used every 20 minutes: each renewal moves the idle expiry, never past sign-in + 2 h.
    for (let step = 1; step <= 5; step += 1) {
      now = started + step * 20 * 60_000;
      const renewed = signer.renewed(session);
      if (renewed) session = renewed;
      expect(session.expiresAtMs).toBe(Math.min(now + 3_600_000, started + 2 * 3_600_000));
      expect(signer.fromRequest(requestWith(valueOf(signer.cookie(session, '/', false))))?.id).toBe(session.id);
    }
    now = started + 2 * 3_600_000 - 1;
    const last = valueOf(signer.cookie(session, '/', false));
    expect(signer.renewed(session)).toBeUndefined();
    expect(signer.fromRequest(requestWith(last))?.label).toBe('operator');
    now = started + 2 * 3_600_000;
    expect(signer.fromRequest(requestWith(last))).toBeUndefined();
    // A cookie signed for longer (a replica with a longer maximum age) is cut to this one's.
    const lenient = new SessionSigner({ ttlMs: 86_400_000, maxAgeMs: 86_400_000, credentials: { operatorToken: TOKENS.operator }, secret: SECRET, now: () => now });
    const long = lenient.create('operator');
    now += 2 * 3_600_000;
    expect(lenient.fromRequest(requestWith(valueOf(lenient.cookie(long, '/', false))))?.id).toBe(long.id);
    expect(signer.fromRequest(requestWith(valueOf(lenient.cookie(long, '/', false))))).toBeUndefined();
  });

  plainTest('labelled tokens: from JOBS_DASHBOARD_TOKENS as label:role:token, and bad labels, roles or repeats are typed errors', () => {
    expect(DASHBOARD_TOKEN_ENV.tokens).toBe('JOBS_DASHBOARD_TOKENS');
    expect(credentialsFromEnv({ JOBS_DASHBOARD_TOKEN: TOKENS.operator, JOBS_DASHBOARD_TOKENS: ' alice:operator:alice-token-0123456789,\n bob:viewer:bob-token-0123:456789ab ' })).toEqual({
      operatorToken: TOKENS.operator,
      tokens: [
        { label: 'alice', role: 'operator', token: 'alice-token-0123456789' },
        { label: 'bob', role: 'viewer', token: 'bob-token-0123:456789ab' },
      ],
    });
    const fieldOf = (run: () => unknown): string | undefined => {
      try {
        run();
      } catch (error) {
        return isJobsError(error, 'JOBS_INVALID_ARGUMENT') ? (error.field as string) : `not typed: ${String(error)}`;
      }
      return undefined;
    };
    expect(fieldOf(() => credentialsFromEnv({ JOBS_DASHBOARD_TOKENS: 'alice-token-0123456789' }))).toBe('JOBS_DASHBOARD_TOKENS');
    expect(fieldOf(() => credentialsFromEnv({ JOBS_DASHBOARD_TOKENS: 'alice:admin:alice-token-0123456789' }))).toBe('JOBS_DASHBOARD_TOKENS');
    const good = { token: 'alice-token-0123456789', role: 'operator' as const, label: 'alice' };
    const cases: [string, unknown][] = [
      ['tokens[0].label', { tokens: [{ ...good, label: '' }] }],
      ['tokens[0].label', { tokens: [{ ...good, label: 'x'.repeat(65) }] }],
      ['tokens[0].label', { tokens: [{ ...good, label: ' alice' }] }],
      ['tokens[0].label', { tokens: [{ ...good, label: 'al\u202ece' }] }],
      ['tokens[0].label', { tokens: [{ ...good, label: 'bob\nmallory' }] }],
      ['tokens[0].role', { tokens: [{ ...good, role: 'admin' }] }],
      ['tokens[0].token', { tokens: [{ ...good, token: 'short' }] }],
      ['tokens[0].extra', { tokens: [{ ...good, extra: 1 }] }],
      ['tokens[1].label', { tokens: [good, { ...good, token: 'other-token-0123456789' }] }],
      ['tokens[0].label', { operatorToken: TOKENS.operator, tokens: [{ ...good, label: 'operator' }] }],
      ['tokens[1]', { tokens: [good, { ...good, label: 'alice-2' }] }],
      ['credentials.operatortoken', { operatortoken: TOKENS.operator }],
    ];
    for (const [field, credentials] of cases) expect(fieldOf(() => createDashboard({ source: emptySource, credentials: credentials as never })), field).toBe(field);
    expect(fieldOf(() => createDashboard({ source: emptySource, sessionMaxAgeMs: 999 }))).toBe('sessionMaxAgeMs');
    expect(fieldOf(() => createDashboard({ source: emptySource, auditMaxEntries: 0 }))).toBe('auditMaxEntries');
  });
});
