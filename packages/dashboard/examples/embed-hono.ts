import { serve, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { createDashboard, credentialsFromEnv, defineKinds, Queue } from '@jobs/dashboard';
import { honoDashboard } from '@jobs/dashboard/hono';

// The dashboard under /admin/jobs of a hono app on @hono/node-server, which hands it Node's request and response.
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const queues = [new Queue({ redis, queue: 'example-mail', kinds: defineKinds({}) })];
const dashboard = createDashboard({ queues, credentials: credentialsFromEnv(process.env), basePath: '/admin/jobs' });

const app = new Hono<{ Bindings: HttpBindings }>();
app.use('/admin/jobs/*', honoDashboard(dashboard));
app.get('/', (c) => c.text('my app'));

export const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 8080), hostname: '127.0.0.1' }, ({ port }) => {
  console.log(`dashboard on http://127.0.0.1:${port}/admin/jobs/`);
});

/** Stops serving, then closes the queues (on SIGTERM). */
export async function stop(): Promise<void> {
  await new Promise((done) => server.close(done));
  await dashboard.close();
  await Promise.all(queues.map((queue) => queue.close()));
}
process.once('SIGTERM', () => void stop());
