
import { createDashboard, type Dashboard, type DashboardOptions, type DashboardQueue, type DashboardServer } from '../src/index.ts';

/** Tokens for tests (long enough to be accepted). */
export const TOKENS = { operator: 'operator-token-0123456789', viewer: 'viewer-token-0123456789ab' } as const;

/** A dashboard on a free loopback port, and a small HTTP client for it. */
export interface TestDashboard {
  readonly dashboard: Dashboard;
  readonly server: DashboardServer;
  /** The base URL (`http://127.0.0.1:PORT/`). */
  readonly url: string;
  /** Signs in with `token`; resolves with the session cookie and CSRF token. */
  login(token: string): Promise<Session>;
  /** A dashboard without a login: the operator session it gives a client that has none. */
  loopbackSession(): Promise<Session>;
  // The answers are read loosely in tests: each test asserts the fields it cares about.
  /** A request as the dashboard's own page sends it (same Origin), with the session's cookie and CSRF token. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  call(method: string, path: string, options?: { session?: Session; body?: unknown; csrf?: string | null; origin?: string | null; host?: string; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

/** A signed-in session. */
export interface Session {
  readonly cookie: string;
  readonly csrfToken: string;
  readonly role: string;
}

/** Starts a dashboard for `queues` with `options`. */
export async function startTestDashboard(queues: readonly DashboardQueue[] | undefined, options: Partial<DashboardOptions> = {}): Promise<TestDashboard> {
  const dashboard = createDashboard({ ...(queues && { queues }), sampleIntervalMs: 0, ...options });
  const server = await dashboard.listen({ port: 0 });
  const url = server.url;
  const origin = new URL(url).origin;
  const call: TestDashboard['call'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.session) headers.cookie = options.session.cookie;
    const csrf = options.csrf === undefined ? options.session?.csrfToken : options.csrf;
    if (csrf) headers['x-csrf-token'] = csrf;
    const sentOrigin = options.origin === undefined ? origin : options.origin;
    if (sentOrigin) headers.origin = sentOrigin;
    if (options.host) headers.host = options.host;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(new URL(path, url), { method, headers, redirect: 'manual', ...(options.body !== undefined && { body: JSON.stringify(options.body) }) });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: a page.
    }
    return { status: response.status, body, headers: response.headers };
  };
  const login = async (token: string): Promise<Session> => {
    const response = await fetch(new URL('login', url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ token }).toString(),
      redirect: 'manual',
    });
    if (response.status !== 303) throw new Error(`login answered ${response.status}`);
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const session = await call('GET', 'api/session', { session: { cookie, csrfToken: '', role: '' } });
    return { cookie, csrfToken: session.body.csrfToken, role: session.body.role };
  };
  const loopbackSession = async (): Promise<Session> => {
    const response = await fetch(new URL('api/session', url), { headers: { accept: 'application/json' } });
    if (response.status !== 200) throw new Error(`the session answered ${response.status}: this dashboard has a login`);
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const body = (await response.json()) as { csrfToken: string; role: string };
    return { cookie, csrfToken: body.csrfToken, role: body.role };
  };
  return { dashboard, server, url, login, loopbackSession, call, close: () => dashboard.close() };
}
