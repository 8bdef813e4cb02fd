import Fastify from 'fastify';
import { createDashboard, credentialsFromEnv, defineKinds, Queue } from '@jobs/dashboard';
import { fastifyDashboard } from '@jobs/dashboard/fastify';

// The dashboard under /admin/jobs of a fastify app: the plugin's prefix is the dashboard's basePath.
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const queues = [new Queue({ redis, queue: 'example-mail', kinds: defineKinds({}) })];
const dashboard = createDashboard({ queues, credentials: credentialsFromEnv(process.env), basePath: '/admin/jobs' });

const app = Fastify();
await app.register(fastifyDashboard(dashboard), { prefix: '/admin/jobs' });
app.get('/', async () => 'my app');

const address = await app.listen({ port: Number(process.env.PORT ?? 8080), host: '127.0.0.1' });
console.log(`dashboard on ${address}/admin/jobs/`);

/** Stops serving, then closes the queues (on SIGTERM). */
export async function stop(): Promise<void> {
  await app.close();
  await dashboard.close();
  await Promise.all(queues.map((queue) => queue.close()));
}
process.once('SIGTERM', () => void stop());
