import type { AddressInfo } from 'node:net';
import { serve, type HttpBindings } from '@hono/node-server';
import { redisTest as test, within } from '@jobs/testing';
import { Hono } from 'hono';
import { describe, expect } from 'vitest';
import { honoDashboard } from '../src/adapters/hono.ts';
import { APP_ROUTE, BASE_PATH, mountedDashboardFixture, provesMountedDashboard } from './mounted-dashboard.ts';

/** Serves `app` with @hono/node-server on a free loopback port until `run` ends. */
async function serving(app: Hono<{ Bindings: HttpBindings }>, run: (origin: string) => Promise<void>): Promise<void> {
  let server!: ReturnType<typeof serve>;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => resolve(info.port));
  });
  try {
    await run(`http://127.0.0.1:${port}`);
  } finally {
    await within(new Promise<void>((resolve) => server.close(() => resolve())), 10_000, () => 'closing the hono server');
  }
}

describe('@jobs/dashboard/hono', () => {
  test('used on its base path: page and API under it, token login, actions need CSRF and the same Origin, nothing outside it', async ({ redis, queueName }) => {
    const { queue, jobId, dashboard } = await mountedDashboardFixture(redis, queueName);
    const app = new Hono<{ Bindings: HttpBindings }>();
    app.use(`${BASE_PATH}/*`, honoDashboard(dashboard));
    app.get(APP_ROUTE.path, (c) => c.text(APP_ROUTE.body));
    await serving(app, (origin) => provesMountedDashboard(origin, queue, jobId));
  });

  test('used app-wide it takes only its base path, and the app\'s middleware sees each of its requests end', async ({ redis, queueName }) => {
    const { queue, jobId, dashboard } = await mountedDashboardFixture(redis, queueName);
    const app = new Hono<{ Bindings: HttpBindings }>();
    const ended: string[] = [];
    app.use(async (c, next) => {
      await next();
      ended.push(`${c.req.method} ${c.req.path} ${c.env.outgoing.writableFinished}`);
    });
    app.use(honoDashboard(dashboard));
    app.get(APP_ROUTE.path, (c) => c.text(APP_ROUTE.body));
    await serving(app, (origin) => provesMountedDashboard(origin, queue, jobId));
    expect(ended).toContain(`GET ${BASE_PATH}/api/overview true`);
    expect(ended.filter((line) => line.startsWith(`GET ${BASE_PATH}/`)).every((line) => line.endsWith(' true'))).toBe(true);
  });

  test('without @hono/node-server (no Node request to hand on) it throws JOBS_INVALID_ARGUMENT (app)', async ({ redis, queueName }) => {
    const { dashboard } = await mountedDashboardFixture(redis, queueName);
    const app = new Hono<{ Bindings: HttpBindings }>();
    const errors: unknown[] = [];
    app.onError((error, c) => {
      errors.push(error);
      return c.text('misconfigured', 500);
    });
    app.use(honoDashboard(dashboard));
    expect((await app.request(`${BASE_PATH}/`)).status).toBe(500);
    expect(errors).toEqual([expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'app' })]);
  });
});
