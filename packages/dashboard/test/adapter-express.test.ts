import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { redisTest as test, within } from '@jobs/testing';
import express, { type Express } from 'express';
import { describe, expect } from 'vitest';
import { expressDashboard } from '../src/adapters/express.ts';
import { createDashboard } from '../src/index.ts';
import { TOKENS } from './dashboard-client.ts';
import { APP_ROUTE, BASE_PATH, mountedDashboardFixture, provesMountedDashboard } from './mounted-dashboard.ts';

/** Serves `app` on a free loopback port until `run` ends. */
async function serving(app: Express, run: (origin: string) => Promise<void>): Promise<void> {
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await within(new Promise<void>((resolve) => server.close(() => resolve())), 10_000, () => 'closing the express server');
  }
}

describe('@jobs/dashboard/express', () => {
  test('mounted under a path: page and API under it, token login, actions need CSRF and the same Origin, nothing outside it', async ({ redis, queueName }) => {
    const { queue, jobId, dashboard } = await mountedDashboardFixture(redis, queueName);
    const app = express();
    app.get(APP_ROUTE.path, (_request, response) => void response.type('text/plain').send(APP_ROUTE.body));
    app.use(BASE_PATH, expressDashboard(dashboard));
    await serving(app, (origin) => provesMountedDashboard(origin, queue, jobId));
  });

  test('used app-wide (no mount path) it takes only its base path, and passes every other request on', async ({ redis, queueName }) => {
    const { queue, jobId, dashboard } = await mountedDashboardFixture(redis, queueName);
    const app = express();
    app.use(expressDashboard(dashboard));
    app.get(APP_ROUTE.path, (_request, response) => void response.type('text/plain').send(APP_ROUTE.body));
    await serving(app, (origin) => provesMountedDashboard(origin, queue, jobId));
  });

  test('after a body parser, an action says why it cannot read its body instead of hanging', async ({ redis, queueName }) => {
    const { queue, jobId, dashboard } = await mountedDashboardFixture(redis, queueName);
    const app = express();
    app.use(express.json());
    app.use(BASE_PATH, expressDashboard(dashboard));
    await serving(app, async (origin) => {
      const login = await fetch(`${origin}${BASE_PATH}/login`, { method: 'POST', redirect: 'manual', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${TOKENS.operator}` });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const { csrfToken } = (await (await fetch(`${origin}${BASE_PATH}/api/session`, { headers: { cookie } })).json()) as { csrfToken: string };
      const answer = await within(
        fetch(`${origin}${BASE_PATH}/api/queues/${queueName}/jobs/${jobId}/cancel`, { method: 'POST', headers: { cookie, origin, 'x-csrf-token': csrfToken, 'content-type': 'application/json' }, body: '{}' }),
        30_000,
        () => 'an action behind express.json()',
      );
      expect(answer.status).toBe(500);
      expect(((await answer.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'body_read', message: expect.stringMatching(/mount the dashboard before body parsers/) });
      expect((await queue.getJob(jobId))?.status).toBe('pending');
    });
  });

  test('mounted at a path its basePath is not under, it passes JOBS_INVALID_ARGUMENT (basePath) to express', async ({ redis, queueName }) => {
    const { queue } = await mountedDashboardFixture(redis, queueName);
    const app = express();
    app.use('/ops', expressDashboard(createDashboard({ queues: [queue], basePath: '/admin/jobs' })));
    const errors: unknown[] = [];
    app.use((error: unknown, _request: express.Request, response: express.Response, _next: express.NextFunction) => {
      errors.push(error);
      response.status(500).send('misconfigured');
    });
    await serving(app, async (origin) => {
      expect((await fetch(`${origin}/ops/`)).status).toBe(500);
    });
    expect(errors).toEqual([expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'basePath', message: expect.stringMatching(/mounted at '\/ops'/) })]);
  });
});
