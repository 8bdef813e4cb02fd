import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { InvalidArgumentError } from '@jobs/core';
import type { Dashboard } from '../dashboard.ts';

/**
 * A fastify plugin that serves a dashboard: `app.register(fastifyDashboard(dashboard), { prefix })`
 * with the dashboard's `basePath` as the prefix. Its routes take every method under the prefix
 * and hand fastify's raw request and response to the dashboard's handler; inside the plugin no
 * body parser runs (the dashboard reads its own bodies), outside it nothing changes. Registered
 * under another prefix it fails to register with `JOBS_INVALID_ARGUMENT` (field `basePath`).
 * Fastify is not imported, only its types.
 *
 * @example
 * ```ts
 * const dashboard = createDashboard({ queues, credentials, basePath: '/admin/jobs' });
 * await app.register(fastifyDashboard(dashboard), { prefix: '/admin/jobs' });
 * ```
 */
export function fastifyDashboard(dashboard: Dashboard): FastifyPluginAsync {
  const { basePath } = dashboard;
  return async (instance) => {
    if (instance.prefix !== basePath) {
      throw new InvalidArgumentError('basePath', `the dashboard answers under '${basePath || '/'}' but the plugin is registered under prefix '${instance.prefix || '/'}': give both the same path`);
    }
    // The plugin's own context: bodies stay unread for the dashboard, whatever their type.
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const serve = (request: FastifyRequest, reply: FastifyReply): void => {
      reply.hijack();
      dashboard.handler(request.raw, reply.raw);
    };
    instance.all('/', serve);
    instance.all('/*', serve);
  };
}
