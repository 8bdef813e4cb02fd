import express from 'express';
import { createDashboard, credentialsFromEnv, defineKinds, Queue } from '@jobs/dashboard';
import { expressDashboard } from '@jobs/dashboard/express';

// The dashboard under /admin/jobs of an express app. Mount it before body parsers.
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const queues = [new Queue({ redis, queue: 'example-mail', kinds: defineKinds({}) })];
const dashboard = createDashboard({ queues, credentials: credentialsFromEnv(process.env), basePath: '/admin/jobs' });

const app = express();
app.use('/admin/jobs', expressDashboard(dashboard));
app.use(express.json());
app.get('/', (_request, response) => void response.send('my app'));

export const server = app.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  console.log(`dashboard on http://127.0.0.1:${port}/admin/jobs/`);
});

/** Stops serving, then closes the queues (on SIGTERM). */
export async function stop(): Promise<void> {
  await new Promise((done) => server.close(done));
  await dashboard.close();
  await Promise.all(queues.map((queue) => queue.close()));
}
process.once('SIGTERM', () => void stop());
