import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DemoApp } from './demo-app.ts';
import { HttpError } from './http-error.ts';
import { readBody } from './request-body.ts';

const PUBLIC_DIR = new URL('../public/', import.meta.url);

const STATIC: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};

const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

type Handler = (app: DemoApp, body: Record<string, unknown>, match: RegExpExecArray) => Promise<unknown>;

/** The API: the recipe demo's endpoints and shapes, and ours beside them. */
const ROUTES: { method: 'GET' | 'POST'; path: RegExp; handler: Handler }[] = [
  { method: 'GET', path: /^\/stats$/, handler: (app) => app.stats() },
  { method: 'GET', path: /^\/jobs$/, handler: (app) => app.jobs() },
  { method: 'GET', path: /^\/jobs\/([^/]+)$/, handler: (app, _body, match) => app.job(decodeURIComponent(match[1] as string)) },
  { method: 'POST', path: /^\/enqueue$/, handler: async (app, body) => ({ ...(await app.enqueue(body)), stats: await app.stats() }) },
  { method: 'POST', path: /^\/enqueue\/custom$/, handler: async (app, body) => ({ ...(await app.enqueueCustom(body)), stats: await app.stats() }) },
  { method: 'POST', path: /^\/workers\/start$/, handler: async (app, body) => (await app.startWorkers(body), app.stats()) },
  { method: 'POST', path: /^\/workers\/stop$/, handler: async (app) => (await app.stopWorkers(), app.stats()) },
  { method: 'POST', path: /^\/workers\/configure$/, handler: async (app, body) => (app.configureWorkers(body), app.stats()) },
  { method: 'POST', path: /^\/reclaim$/, handler: async (app) => ({ ...(await app.reclaim()), stats: await app.stats() }) },
  { method: 'POST', path: /^\/reclaim\/auto$/, handler: async (app, body) => (await app.setAutoReclaim(body), app.stats()) },
  { method: 'POST', path: /^\/jobs\/([^/]+)\/retry$/, handler: async (app, _body, match) => ({ ...(await app.retry(decodeURIComponent(match[1] as string))), stats: await app.stats() }) },
  { method: 'POST', path: /^\/queue\/pause$/, handler: async (app) => (await app.pause(), app.stats()) },
  { method: 'POST', path: /^\/queue\/resume$/, handler: async (app) => (await app.resume(), app.stats()) },
  { method: 'POST', path: /^\/reset$/, handler: async (app) => (await app.reset(), { stats: await app.stats() }) },
];

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

/**
 * Rejects state-changing requests from other sites: a browser sends Origin (and
 * Sec-Fetch-Site) with a cross-site POST; both must say it comes from this page. The Host must
 * be one we serve, which also defeats DNS rebinding. Scripts without an Origin (curl) pass.
 */
function checkOrigin(request: IncomingMessage, allowedHosts: ReadonlySet<string>): void {
  const host = request.headers.host ?? '';
  if (!allowedHosts.has(host)) throw new HttpError(403, `requests must be addressed to ${[...allowedHosts].join(' or ')}`);
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw new HttpError(403, 'cross-site requests are refused');
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`) throw new HttpError(403, 'cross-origin requests are refused');
}

/** Options of {@link createDemoServer}. */
export interface DemoServerOptions {
  /** Host names requests may be addressed to (the port is the one the server listens on). */
  hostNames: readonly string[];
}

/** The demo's HTTP server: the page, its assets and the API. Call `listen` on it. */
export function createDemoServer(app: DemoApp, options: DemoServerOptions): Server {
  let allowedHosts: ReadonlySet<string> = new Set();
  const assets = Object.fromEntries(
    Object.entries(STATIC).map(([path, { file, type }]) => {
      const text = readFileSync(new URL(file, PUBLIC_DIR), 'utf8').replaceAll('{{VISIBILITY_MS}}', String(app.options.visibilityMs));
      return [path, { body: text, type }];
    }),
  );
  const server = createServer((request, response) => {
    void (async () => {
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      const method = request.method ?? 'GET';
      const asset = assets[path];
      if (asset && (method === 'GET' || method === 'HEAD')) {
        response.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type, 'cache-control': 'no-cache' });
        response.end(method === 'HEAD' ? undefined : asset.body);
        return;
      }
      const byPath = ROUTES.filter((route) => route.path.test(path));
      const route = byPath.find((candidate) => candidate.method === method);
      if (!route) {
        if (byPath.length > 0) {
          response.setHeader('allow', byPath.map((candidate) => candidate.method).join(', '));
          throw new HttpError(405, `${method} is not allowed on ${path}`);
        }
        throw new HttpError(404, `no such endpoint: ${path}`);
      }
      let body: Record<string, unknown> = {};
      if (method === 'POST') {
        checkOrigin(request, allowedHosts);
        body = await readBody(request);
      }
      send(response, 200, await route.handler(app, body, route.path.exec(path) as RegExpExecArray));
    })().catch((error: unknown) => {
      if (error instanceof HttpError) send(response, error.status, error.body);
      else {
        process.stderr.write(`[demo] ${request.method} ${request.url}: ${error instanceof Error ? error.message : String(error)}\n`);
        send(response, 500, { error: 'internal error: see the server log' });
      }
    });
  });
  server.on('listening', () => {
    const { port } = server.address() as AddressInfo;
    allowedHosts = new Set(options.hostNames.map((name) => `${name.includes(':') && !name.startsWith('[') ? `[${name}]` : name}:${port}`));
  });
  return server;
}
