import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { MiddlewareHandler } from 'hono';
import { InvalidArgumentError } from '@jobs/core';
import type { Dashboard } from '../dashboard.ts';
import { isUnderBasePath } from './under-base-path.ts';

/**
 * A hono middleware for an app served by `@hono/node-server`: requests under the dashboard's
 * `basePath` go to its handler with the raw Node request and response (`c.env.incoming`,
 * `c.env.outgoing`), every other one to `next()`. `app.use(middleware)`, or
 * `app.use('/admin/jobs/*', middleware)`. On a runtime without those (not on Node) it throws
 * `JOBS_INVALID_ARGUMENT` (field `app`). Imports `@hono/node-server` only when this entry is used.
 *
 * @example
 * ```ts
 * const dashboard = createDashboard({ queues, credentials, basePath: '/admin/jobs' });
 * app.use('/admin/jobs/*', honoDashboard(dashboard));
 * serve({ fetch: app.fetch, port: 8080 });
 * ```
 */
export function honoDashboard(dashboard: Dashboard): MiddlewareHandler<{ Bindings: HttpBindings }> {
  const { basePath } = dashboard;
  return async (c, next) => {
    const incoming = c.env?.incoming;
    const outgoing = c.env?.outgoing;
    if (!incoming || !outgoing) throw new InvalidArgumentError('app', 'the dashboard needs the Node request and response: serve the hono app with @hono/node-server');
    if (!isUnderBasePath(basePath, incoming.url ?? '/')) {
      await next();
      return;
    }
    // Resolves when the dashboard has answered (or the client has gone), so hono's own
    // middleware (loggers, timers) sees the request end when it does.
    const answered = new Promise<void>((resolve) => {
      outgoing.once('finish', resolve);
      outgoing.once('close', resolve);
    });
    dashboard.handler(incoming, outgoing);
    await answered;
    return RESPONSE_ALREADY_SENT;
  };
}
