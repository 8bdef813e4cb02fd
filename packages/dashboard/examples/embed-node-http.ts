import { createServer } from 'node:http';
import { createDashboard, credentialsFromEnv, defineKinds, Queue } from '@jobs/dashboard';

// The dashboard under /admin/jobs of a node:http server that serves other things too.
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const queues = [new Queue({ redis, queue: 'example-mail', kinds: defineKinds({}) })];
const dashboard = createDashboard({ queues, credentials: credentialsFromEnv(process.env), basePath: '/admin/jobs' });

export const server = createServer((request, response) => {
  const path = (request.url ?? '/').split('?')[0] as string;
  if (path === '/admin/jobs' || path.startsWith('/admin/jobs/')) return dashboard.handler(request, response);
  response.writeHead(404).end('not here');
});
server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => {
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
