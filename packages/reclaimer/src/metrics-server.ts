import { createServer } from 'node:http';
import { assertOptionKeys } from '@jobs/core/internal';
import type { ReclaimerMetrics } from './metrics.ts';

/** A running metrics server. */
export interface MetricsServer {
  /** The port it listens on (useful with port 0). */
  readonly port: number;
  readonly host: string;
  close(): Promise<void>;
}

/**
 * Serves `/metrics` (Prometheus text format) and `/healthz` (200 when `healthy` says ok, else 503
 * with its reason, JSON either way; `Reclaimer.healthy` checks PING and recent sweeps). Binds to
 * 127.0.0.1 unless told otherwise; rejects (EADDRINUSE...) when it cannot bind.
 */
export function startMetricsServer(options: {
  port: number;
  host?: string;
  metrics: ReclaimerMetrics;
  healthy: () => Promise<{ ok: boolean; error?: string }>;
}): Promise<MetricsServer> {
  assertOptionKeys<Parameters<typeof startMetricsServer>[0]>('options', options, { port: true, host: true, metrics: true, healthy: true });
  const host = options.host ?? '127.0.0.1';
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    if (path === '/metrics') {
      options.metrics.registry.metrics().then(
        (body) => response.writeHead(200, { 'content-type': options.metrics.registry.contentType }).end(body),
        (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(error)}\n`),
      );
      return;
    }
    if (path === '/healthz') {
      void options.healthy().then((health) => {
        response
          .writeHead(health.ok ? 200 : 503, { 'content-type': 'application/json' })
          .end(`${JSON.stringify(health.ok ? { status: 'ok' } : { status: 'unavailable', error: health.error })}\n`);
      });
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics or /healthz\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address !== null ? address.port : options.port,
        host,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
