import { createDashboard, credentialsFromEnv, defineKinds, Queue } from '@jobs/dashboard';

// The dashboard for two queues, inside your own service. Tokens come from the environment
// (JOBS_DASHBOARD_TOKEN, JOBS_DASHBOARD_VIEWER_TOKEN); without them it has no login and listens
// on 127.0.0.1 only.
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const queues = ['example-mail', 'example-billing'].map((queue) => new Queue({ redis, queue, kinds: defineKinds({}) }));

export const dashboard = createDashboard({ queues, credentials: credentialsFromEnv(process.env), pollIntervalMs: 2_000 });
export const server = await dashboard.listen({ port: Number(process.env.PORT ?? 9465) });
console.log(`dashboard on ${server.url}`);

// Or mount it in a server you have: createServer(dashboard.handler), or under a path with
// createDashboard({ ..., basePath: '/admin/jobs' }).
process.once('SIGTERM', () => void Promise.all([dashboard.close(), ...queues.map((queue) => queue.close())]));
