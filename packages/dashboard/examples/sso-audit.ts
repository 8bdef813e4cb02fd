import { createDashboard, credentialsFromEnv, defineKinds, Queue, type DashboardAuthorize } from '@jobs/dashboard';

// Behind an SSO proxy that sets X-Forwarded-User (and drops any a client sends): the hook names
// each caller, and every action goes in the queue's audit trail under that name. Labelled tokens
// from JOBS_DASHBOARD_TOKENS (alice:operator:TOKEN,...) still sign in, for when the proxy is down.
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const queues = [new Queue({ redis, queue: 'example-sso', kinds: defineKinds({}) })];
const OPERATORS = new Set(['olga@example.com']);

const authorize: DashboardAuthorize = (request, access) => {
  if (access.session) return { allow: true, ...access.session };
  const user = request.headers['x-forwarded-user'];
  if (typeof user !== 'string' || user === '') return { allow: false };
  return { allow: true, role: OPERATORS.has(user) ? 'operator' : 'viewer', label: user };
};

export const dashboard = createDashboard({ queues, authorize, credentials: credentialsFromEnv(process.env), sessionMaxAgeMs: 8 * 3_600_000 });
export const server = await dashboard.listen({ port: Number(process.env.PORT ?? 9466) });
console.log(`dashboard on ${server.url}`);

/** Who did what to the queue lately, newest first: what the page's audit view and `jobsctl audit` show. */
export async function lastActions(): Promise<string[]> {
  const { entries } = await (queues[0] as Queue<unknown>).auditTrail({ limit: 10 });
  return entries.map((entry) => `${new Date(entry.atMs).toISOString()} ${entry.who.label} (${entry.who.role}) ${entry.action} x${entry.count}`);
}
process.once('SIGTERM', () => void Promise.all([dashboard.close(), ...queues.map((queue) => queue.close())]));
