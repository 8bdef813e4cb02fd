import { defineKinds, Queue, type RedisClient } from '@jobs/core';
import { expect } from 'vitest';
import { createDashboard, type Dashboard } from '../src/index.ts';
import { TOKENS } from './dashboard-client.ts';

/** Where the adapter tests mount the dashboard in their app. */
export const BASE_PATH = '/admin/jobs';

/** What each test app serves beside the dashboard, to show the dashboard leaves it alone. */
export const APP_ROUTE = { path: '/health', body: 'app ok' } as const;

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { to: { type: 'string' } } } } });

/** The queue of the fixture. */
export type FixtureQueue = ReturnType<typeof openQueue>;

function openQueue(redis: RedisClient, queueName: string) {
  return new Queue({ redis, queue: queueName, kinds });
}

/** A queue with one pending job, and a dashboard of it at {@link BASE_PATH} that needs a token. */
export async function mountedDashboardFixture(redis: RedisClient, queueName: string): Promise<{ queue: FixtureQueue; jobId: string; dashboard: Dashboard }> {
  const queue = openQueue(redis, queueName);
  const jobId = await queue.enqueue('email', { to: 'ops@example.com' });
  const dashboard = createDashboard({ queues: [queue], credentials: { operatorToken: TOKENS.operator }, basePath: BASE_PATH, sampleIntervalMs: 0 });
  return { queue, jobId, dashboard };
}

/** Whether an answer came from the dashboard: each of its answers carries its own CSP (a framework's 404 may carry another). */
const fromDashboard = (response: Response): boolean => (response.headers.get('content-security-policy') ?? '').includes("default-src 'self'");

/**
 * Proves a dashboard from {@link mountedDashboardFixture} served by an app at `origin`
 * (`http://127.0.0.1:PORT`): its page and API answer under the base path only, a token signs in,
 * an action needs the session's CSRF token and the dashboard's own Origin, and the app's other
 * paths (its own route, the API's path at the root, a sibling path) never reach the dashboard.
 */
export async function provesMountedDashboard(origin: string, queue: FixtureQueue, jobId: string): Promise<void> {
  const at = (path: string): string => `${origin}${BASE_PATH}${path}`;
  const get = (url: string, cookie?: string): Promise<Response> => fetch(url, { redirect: 'manual', headers: { accept: 'application/json', ...(cookie && { cookie }) } });

  // The base path without its slash redirects to the page; the page, without a session, to the login.
  const bare = await get(`${origin}${BASE_PATH}`);
  expect(bare.status).toBe(303);
  expect(bare.headers.get('location')).toBe(`${BASE_PATH}/`);
  const signedOut = await get(at('/'));
  expect(signedOut.status).toBe(303);
  expect(signedOut.headers.get('location')).toBe(`${BASE_PATH}/login`);
  expect((await get(at('/api/overview'))).status).toBe(401);
  const loginPage = await get(at('/login'));
  expect(loginPage.status).toBe(200);
  expect(await loginPage.text()).toContain('<form');

  // Signing in: a wrong token is refused, the operator's sets a cookie scoped to the base path.
  const form = (token: string): RequestInit => ({ method: 'POST', redirect: 'manual', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }).toString() });
  expect((await fetch(at('/login'), form('not-the-operator-token'))).status).toBe(401);
  const login = await fetch(at('/login'), form(TOKENS.operator));
  expect(login.status).toBe(303);
  expect(login.headers.get('location')).toBe(`${BASE_PATH}/`);
  const setCookie = login.headers.get('set-cookie') ?? '';
  expect(setCookie).toMatch(new RegExp(`; Path=${BASE_PATH}(;|$)`));
  expect(setCookie).toMatch(/HttpOnly/);
  const cookie = setCookie.split(';')[0] as string;

  // The page, its assets and the API, under the base path.
  const page = await get(at('/'), cookie);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(fromDashboard(page)).toBe(true);
  expect(await page.text()).toContain('assets/app.js');
  const script = await get(at('/assets/app.js'), cookie);
  expect(script.status).toBe(200);
  expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
  const overview = await get(at('/api/overview'), cookie);
  expect(overview.status).toBe(200);
  expect(((await overview.json()) as { queues: unknown[] }).queues).toEqual([expect.objectContaining({ name: queue.name, stats: expect.objectContaining({ pendingDepth: 1 }) })]);
  const session = (await (await get(at('/api/session'), cookie)).json()) as { role: string; csrfToken: string };
  expect(session.role).toBe('operator');

  // An action: refused without the CSRF token, refused from another Origin, done with both.
  const cancel = (headers: Record<string, string>): Promise<Response> =>
    fetch(at(`/api/queues/${encodeURIComponent(queue.name)}/jobs/${jobId}/cancel`), { method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/json', ...headers }, body: '{}' });
  const noCsrf = await cancel({ origin });
  expect(noCsrf.status).toBe(403);
  expect(((await noCsrf.json()) as { error: { code: string } }).error.code).toBe('csrf');
  const forged = await cancel({ origin: 'https://evil.example', 'x-csrf-token': session.csrfToken });
  expect(forged.status).toBe(403);
  expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('origin');
  expect((await queue.getJob(jobId))?.status).toBe('pending');
  const done = await cancel({ origin, 'x-csrf-token': session.csrfToken });
  expect(done.status).toBe(200);
  expect((await queue.getJob(jobId))?.status).toBe('cancelled');

  // Outside the base path the app answers, not the dashboard, even with the session's cookie.
  const own = await get(`${origin}${APP_ROUTE.path}`, cookie);
  expect(own.status).toBe(200);
  expect(await own.text()).toBe(APP_ROUTE.body);
  for (const path of ['/api/overview', '/', '/login', `${BASE_PATH}x/api/overview`, '/admin/other']) {
    const outside = await get(`${origin}${path}`, cookie);
    expect(outside.status, path).toBe(404);
    expect(fromDashboard(outside), path).toBe(false);
  }
}
