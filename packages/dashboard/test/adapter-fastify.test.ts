import { redisTest as test, within } from '@jobs/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { fastifyDashboard } from '../src/adapters/fastify.ts';
import { APP_ROUTE, BASE_PATH, mountedDashboardFixture, provesMountedDashboard } from './mounted-dashboard.ts';

/** Serves `app` on a free loopback port until `run` ends. */
async function serving(app: FastifyInstance, run: (origin: string) => Promise<void>): Promise<void> {
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    await run(origin);
  } finally {
    await within(app.close(), 10_000, () => 'closing the fastify app');
  }
}

describe('@jobs/dashboard/fastify', () => {
  test('registered under a prefix: page and API under it, token login, actions need CSRF and the same Origin, nothing outside it', async ({ redis, queueName }) => {
    const { queue, jobId, dashboard } = await mountedDashboardFixture(redis, queueName);
    const app = Fastify();
    app.get(APP_ROUTE.path, async (_request, reply) => reply.type('text/plain').send(APP_ROUTE.body));
    // The app's own JSON routes keep their body parser: the plugin changes only its own context.
    app.post('/echo', async (request) => request.body);
    await app.register(fastifyDashboard(dashboard), { prefix: BASE_PATH });
    await serving(app, async (origin) => {
      await provesMountedDashboard(origin, queue, jobId);
      const echo = await fetch(`${origin}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"kept":true}' });
      expect(await echo.json()).toEqual({ kept: true });
    });
  });

  test('registered under a prefix other than its basePath, it fails to register with JOBS_INVALID_ARGUMENT (basePath)', async ({ redis, queueName }) => {
    const { dashboard } = await mountedDashboardFixture(redis, queueName);
    const app = Fastify();
    try {
      await expect(app.register(fastifyDashboard(dashboard), { prefix: '/ops' }).ready()).rejects.toMatchObject({ code: 'JOBS_INVALID_ARGUMENT', field: 'basePath' });
    } finally {
      await app.close().catch(() => undefined);
    }
  });
});
