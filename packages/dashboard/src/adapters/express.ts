import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidArgumentError } from '@jobs/core';
import type { Dashboard } from '../dashboard.ts';
import { isUnderBasePath } from './under-base-path.ts';

/** The request an express middleware gets, as far as the dashboard reads it. */
export type ExpressRequestLike = IncomingMessage & { originalUrl?: string; baseUrl?: string };

/**
 * An express (4 or 5) middleware: `app.use(middleware)` or `app.use(basePath, middleware)`, or
 * on a `Router`. Typed without express's types, so none are needed to use it.
 */
export type ExpressDashboardMiddleware = (request: ExpressRequestLike, response: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * Mounts a dashboard in an express app: requests under the dashboard's `basePath` go to its
 * handler (with their full URL, wherever the middleware is mounted), every other one to `next()`.
 * Mount it before body parsers (`express.json()`), since the dashboard reads its own request
 * bodies. Mounted under a path that `basePath` is not under, it passes `JOBS_INVALID_ARGUMENT`
 * (field `basePath`) to `next`. Express is not imported: this works with the app you have.
 *
 * @example
 * ```ts
 * const dashboard = createDashboard({ queues, credentials, basePath: '/admin/jobs' });
 * app.use('/admin/jobs', expressDashboard(dashboard));
 * ```
 */
export function expressDashboard(dashboard: Dashboard): ExpressDashboardMiddleware {
  const { basePath } = dashboard;
  return (request, response, next) => {
    const mountedAt = request.baseUrl ?? '';
    if (mountedAt !== '' && !isUnderBasePath(mountedAt, basePath)) {
      next(new InvalidArgumentError('basePath', `the dashboard answers under '${basePath || '/'}' but is mounted at '${mountedAt}': give createDashboard({ basePath: '${mountedAt}' })`));
      return;
    }
    const url = request.originalUrl ?? request.url ?? '/';
    if (!isUnderBasePath(basePath, url)) {
      next();
      return;
    }
    // Express strips the mount path from `url`; the dashboard routes on the full path.
    request.url = url;
    dashboard.handler(request, response);
  };
}
