import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { InvalidArgumentError, silentLogger, type Logger } from '@jobs/core';
import { assertOptionKeys, assertWholeNumber, type OptionKeys } from '@jobs/core/internal';
import { handleApi, httpErrorOf, STATES, type ApiContext } from './api-routes.ts';
import { ASSETS } from './assets.generated.ts';
import { accessCheck, HOOK_SESSION_LABEL, type DashboardAuthorize } from './authorize.ts';
import { assertCredentials, requiresLogin, tokenFor, type DashboardCredentials } from './credentials.ts';
import { capabilitiesOf, type DashboardDataSource } from './data-source.ts';
import { decodePathPart, HttpError, readBody, redirect, sendAsset, sendError, sendJson } from './http-io.ts';
import { jobQueueSource, type DashboardQueue } from './job-queue-source.ts';
import { RateHistory } from './rate-history.ts';
import { isUiPath, pageUnder, returnPath } from './ui-paths.ts';
import { csrfMatches, hostAllowed, isLoopbackHost, isLoopbackPeer, originProblem } from './request-checks.ts';
import { SessionSigner, type DashboardSession } from './sessions.ts';

/** Options of {@link createDashboard}. */
export interface DashboardOptions {
  /** The queues to show: `Queue`s, or a function returning the current set. Or give `source`. */
  queues?: readonly DashboardQueue[] | (() => readonly DashboardQueue[]);
  /** Where to read and act instead of `queues`; its optional members light up pause, timelines... */
  source?: DashboardDataSource;
  /** The tokens that open it. None (and no `authorize`): no login, everyone is an operator, and it listens on and answers loopback only. */
  credentials?: DashboardCredentials;
  /**
   * Your own check of every API request (an SSO proxy's headers, say): it names the caller (role
   * and label, recorded in the audit trail) or refuses. It counts as a login: the dashboard then
   * answers and listens beyond loopback. Tokens, when given too, still sign in, and the hook is
   * told of the token session a request carries; it decides all the same. CSRF and Origin checks
   * still apply to every action.
   */
  authorize?: DashboardAuthorize;
  /** The page's default time between polls; the operator can change it on the page. Default 5000 ms. */
  pollIntervalMs?: number;
  /** Most ids a filtered list (kind, payload field) reads per request. Default 1000. */
  scanLimit?: number;
  /** Most jobs on a page of a list. Default 100. */
  maxPageSize?: number;
  /** Most dead-lettered jobs one "redrive all failed" moves. Default 100000. */
  redriveLimit?: number;
  /** The path it is mounted under when embedded (`/admin/jobs`). Default: the root. */
  basePath?: string;
  /** Host names besides loopback that it answers to when it has no login (DNS rebinding guard). */
  allowedHosts?: readonly string[];
  /** Origins besides its own accepted for actions (a proxy that rewrites `Host`). */
  trustedOrigins?: readonly string[];
  /** Idle time after which a session ends (its signed cookie expires). Default 12 h. */
  sessionTtlMs?: number;
  /** The longest a session lasts after its sign-in, however often it is renewed. Default 12 h. */
  sessionMaxAgeMs?: number;
  /** The most entries each queue's audit trail keeps (older ones are trimmed). Default 10000. */
  auditMaxEntries?: number;
  /** How often `listen()` samples rates in the background. Default 5000 ms; 0: only while polled. */
  sampleIntervalMs?: number;
  /** Structured logs (actions, failures); tokens and cookies are never logged. Default: silent. */
  logger?: Logger;
}

/** The keys of {@link DashboardOptions}: any other is refused. */
const DASHBOARD_OPTION_KEYS: OptionKeys<DashboardOptions> = {
  queues: true,
  source: true,
  credentials: true,
  authorize: true,
  pollIntervalMs: true,
  scanLimit: true,
  maxPageSize: true,
  redriveLimit: true,
  basePath: true,
  allowedHosts: true,
  trustedOrigins: true,
  sessionTtlMs: true,
  sessionMaxAgeMs: true,
  auditMaxEntries: true,
  sampleIntervalMs: true,
  logger: true,
};

/** A running dashboard server. */
export interface DashboardServer {
  readonly port: number;
  readonly host: string;
  /** `http://host:port/` plus the base path. */
  readonly url: string;
  close(): Promise<void>;
}

/** A dashboard: a request handler to mount in your server, or `listen()` for a server of its own. */
export interface Dashboard {
  /** The node:http request handler (mount it at `basePath`). */
  readonly handler: RequestListener;
  /** The path it answers under, without a trailing slash: `''` at the root, `/admin/jobs` when embedded. */
  readonly basePath: string;
  /**
   * Serves it on `port` (0: any free one) at `host` (default 127.0.0.1). Throws
   * `JOBS_INVALID_ARGUMENT` (field `host`) for an address other machines reach when it has no
   * credentials.
   */
  listen(options: { port: number; host?: string }): Promise<DashboardServer>;
  /** Stops its servers and its background sampling. */
  close(): Promise<void>;
}

const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  html: 'text/html; charset=utf-8',
  svg: 'image/svg+xml',
};

function normalizeBasePath(basePath: string | undefined): string {
  const trimmed = (basePath ?? '').replace(/\/+$/, '');
  if (trimmed !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(trimmed)) throw new InvalidArgumentError('basePath', 'expected a path like /admin/jobs');
  return trimmed;
}

/**
 * Creates the ops dashboard for `queues` (or a data source): depths, rates, the oldest pending
 * job, per-state job lists with paging and bounded search, a job's detail, and actions (retry,
 * redrive all failed, cancel, purge). Everything it serves is in the package: no CDN.
 *
 * @example
 * ```ts
 * const dashboard = createDashboard({ queues: [mailQueue], credentials: credentialsFromEnv(process.env) });
 * const server = await dashboard.listen({ port: 9465 });
 * ```
 */
export function createDashboard(options: DashboardOptions): Dashboard {
  assertOptionKeys<DashboardOptions>('options', options, DASHBOARD_OPTION_KEYS);
  const source = options.source ?? (options.queues ? jobQueueSource(options.queues) : undefined);
  if (!source) throw new InvalidArgumentError('queues', 'give the queues to show, or a data source');
  const credentials = options.credentials ?? {};
  assertCredentials(credentials);
  const loginRequired = requiresLogin(credentials);
  const hook = options.authorize;
  if (hook !== undefined && typeof hook !== 'function') throw new InvalidArgumentError('authorize', 'expected a function (request, access) => { allow, role, label }');
  // A hook is a login too: the loopback-only rules are for a dashboard that has neither.
  const authenticated = loginRequired || hook !== undefined;
  const noLoginLabel = hook ? HOOK_SESSION_LABEL : 'loopback';
  const basePath = normalizeBasePath(options.basePath);
  const cookiePath = basePath || '/';
  const log = options.logger ?? silentLogger;
  const pollIntervalMs = assertWholeNumber('pollIntervalMs', options.pollIntervalMs ?? 5_000, 250, 3_600_000);
  const sampleIntervalMs = assertWholeNumber('sampleIntervalMs', options.sampleIntervalMs ?? 5_000, 0, 3_600_000);
  const sessions = new SessionSigner({
    ttlMs: assertWholeNumber('sessionTtlMs', options.sessionTtlMs ?? 12 * 3_600_000, 1_000, 30 * 86_400_000),
    maxAgeMs: assertWholeNumber('sessionMaxAgeMs', options.sessionMaxAgeMs ?? 12 * 3_600_000, 1_000, 30 * 86_400_000),
    credentials,
    // Sessions without a token: the operator of a dashboard without login, or a hooked one's CSRF-only session.
    builtIn: hook || !loginRequired ? [{ label: noLoginLabel, role: hook ? 'viewer' : 'operator', token: '' }] : [],
    ...(credentials.sessionSecret !== undefined && { secret: credentials.sessionSecret }),
  });
  const history = new RateHistory();
  const allowedHosts = options.allowedHosts ?? [];
  const trustedOrigins = options.trustedOrigins ?? [];
  const api: ApiContext = {
    source,
    history,
    scanLimit: assertWholeNumber('scanLimit', options.scanLimit ?? 1_000, 1, 100_000),
    maxPageSize: assertWholeNumber('maxPageSize', options.maxPageSize ?? 100, 1, 1_000),
    redriveLimit: assertWholeNumber('redriveLimit', options.redriveLimit ?? 100_000, 1, 10_000_000),
    auditMaxEntries: assertWholeNumber('auditMaxEntries', options.auditMaxEntries ?? 10_000, 1, 1_000_000),
    log,
  };
  const capabilities = capabilitiesOf(source);
  const indexPage = pageUnder(ASSETS['index.html'] as string, basePath);
  const loginHtml = pageUnder(ASSETS['login.html'] as string, basePath);

  const secureCookie = (request: IncomingMessage): boolean => request.headers['x-forwarded-proto'] === 'https';

  /**
   * The request's session, its cookie renewed (at most once a minute) on the answer; without a
   * login, a new operator session for a browser that has none; with a hook, a session that
   * carries the browser's CSRF token alone (the hook says who it is).
   */
  const sessionOf = (request: IncomingMessage, response: ServerResponse): DashboardSession | undefined => {
    const session = sessions.fromRequest(request);
    const issued = session ? sessions.renewed(session) : loginRequired && !hook ? undefined : sessions.create(noLoginLabel);
    if (issued) response.setHeader('set-cookie', sessions.cookie(issued, cookiePath, secureCookie(request)));
    return issued ?? session;
  };

  // `next`: a page to return to (see returnPath), carried in the form's address.
  const loginPage = (response: ServerResponse, failed: boolean, next: string | undefined): void => {
    const form = next === undefined ? loginHtml : loginHtml.replace('action="login"', `action="login?next=${next}"`);
    const page = form.replace('<p id="login-error" hidden>', failed ? '<p id="login-error">' : '<p id="login-error" hidden>');
    sendAsset(response, CONTENT_TYPES.html as string, page, { 'cache-control': 'no-store' }, failed ? 401 : 200);
  };

  const login = async (request: IncomingMessage, response: ServerResponse, next: string | undefined): Promise<void> => {
    const problem = originProblem(request, trustedOrigins);
    if (problem) throw new HttpError(403, 'origin', `refused: ${problem}`);
    const form = new URLSearchParams(await readBody(request));
    const token = tokenFor(credentials, form.get('token') ?? '');
    if (!token) {
      log.warn({ remote: request.socket.remoteAddress }, 'dashboard login refused');
      loginPage(response, true, next);
      return;
    }
    const session = sessions.create(token.label);
    log.info({ role: token.role, label: token.label, remote: request.socket.remoteAddress }, 'dashboard login');
    redirect(response, `${basePath}${next ?? '/'}`, { 'set-cookie': sessions.cookie(session, cookiePath, secureCookie(request)) });
  };

  const route = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const url = new URL(request.url ?? '/', 'http://dashboard.invalid');
    if (basePath && !(url.pathname === basePath || url.pathname.startsWith(`${basePath}/`))) throw new HttpError(404, 'not_found', 'not found');
    if (url.pathname === basePath) {
      redirect(response, `${basePath}/`);
      return;
    }
    const path = url.pathname.slice(basePath.length);
    const method = request.method ?? 'GET';
    if (!authenticated && !isLoopbackPeer(request.socket.remoteAddress)) throw new HttpError(403, 'loopback_only', 'this dashboard has no login, so it answers this machine only: give it credentials');
    if (!authenticated && !hostAllowed(request, allowedHosts)) throw new HttpError(421, 'host', 'this dashboard answers to loopback names only (see allowedHosts)');
    const asset = /^\/assets\/([a-z-]+\.(js|css|svg))$/.exec(path);
    if (asset && method === 'GET') {
      const body = ASSETS[asset[1] as string];
      if (body === undefined) throw new HttpError(404, 'not_found', 'no such asset');
      sendAsset(response, CONTENT_TYPES[asset[2] as string] as string, body);
      return;
    }
    if (path === '/login') {
      if (!loginRequired) redirect(response, `${basePath}/`);
      else if (method === 'POST') await login(request, response, returnPath(url.searchParams.get('next')));
      else loginPage(response, false, returnPath(url.searchParams.get('next')));
      return;
    }
    const session = sessionOf(request, response);
    // Every page of the workspace answers the same document; the script routes by the path.
    if (method === 'GET' && isUiPath(path)) {
      if (!session) {
        const next = returnPath(path);
        redirect(response, `${basePath}/login${next === undefined ? '' : `?next=${next}`}`);
      } else sendAsset(response, CONTENT_TYPES.html as string, indexPage, { 'cache-control': 'no-store' });
      return;
    }
    if (!path.startsWith('/api/') && path !== '/logout') throw new HttpError(404, 'not_found', 'not found');
    if (!session) throw new HttpError(401, 'signed_out', 'sign in first');
    if (method !== 'GET') {
      const problem = originProblem(request, trustedOrigins);
      if (problem) throw new HttpError(403, 'origin', `refused: ${problem}`);
      if (!csrfMatches(request, session.csrfToken)) throw new HttpError(403, 'csrf', 'refused: the request lacks this session\'s CSRF token; reload the page');
    }
    if (path === '/logout' && method === 'POST') {
      sessions.revoke(session);
      sendJson(response, 200, { signedOut: true }, { 'set-cookie': sessions.clearCookie(cookiePath) });
      return;
    }
    const check = accessCheck({ hook, request, session, log });
    // A read names its queue when its path does: a hook may give each team its own queues.
    const readQueue = /^\/api\/queues\/([^/]+)\//.exec(path);
    const reader = method === 'GET' ? await check({ action: 'read', ...(readQueue && { queue: decodePathPart(readQueue[1] as string, 'queue') }) }) : undefined;
    if (path === '/api/session' && reader) {
      sendJson(
        response,
        200,
        { role: reader.role, label: reader.label, csrfToken: session.csrfToken, loginRequired, capabilities, listStates: STATES, pollIntervalMs, scanLimit: api.scanLimit, maxPageSize: api.maxPageSize, redriveLimit: api.redriveLimit },
      );
      return;
    }
    if (!(await handleApi(api, request, response, path, url.searchParams, check))) throw new HttpError(404, 'not_found', 'no such API route');
  };

  const handler: RequestListener = (request, response) => {
    route(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      sendError(response, httpErrorOf(error, log));
    });
  };

  const servers = new Set<() => Promise<void>>();
  let sampler: NodeJS.Timeout | undefined;
  const sample = async (): Promise<void> => {
    for (const name of await source.queueNames()) history.record(name, await source.stats(name));
  };

  return {
    handler,
    basePath,
    async listen({ port, host = '127.0.0.1' }) {
      if (!authenticated && !isLoopbackHost(host)) {
        throw new InvalidArgumentError('host', `the dashboard has no credentials, so it listens on loopback only; set JOBS_DASHBOARD_TOKEN (and JOBS_DASHBOARD_VIEWER_TOKEN) to bind ${host}`);
      }
      const server = createServer(handler);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => resolve());
      });
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      const close = (): Promise<void> =>
        new Promise<void>((done) => {
          servers.delete(close);
          server.close(() => done());
          server.closeAllConnections();
        });
      servers.add(close);
      if (sampleIntervalMs > 0 && !sampler) {
        const loop = (): void => {
          sampler = setTimeout(() => void sample().catch(() => undefined).finally(() => sampler && loop()), sampleIntervalMs);
          sampler.unref();
        };
        loop();
      }
      const shownHost = host.includes(':') ? `[${host}]` : host;
      return { port: bound, host, url: `http://${shownHost}:${bound}${basePath}/`, close };
    },
    async close() {
      clearTimeout(sampler);
      sampler = undefined;
      await Promise.all([...servers].map((close) => close()));
    },
  };
}
