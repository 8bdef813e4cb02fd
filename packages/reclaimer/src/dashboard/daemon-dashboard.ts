import { isJobsError, type Logger, type RedisConnectionInput } from '@jobs/core';
import { closeClient, connectRedis } from '@jobs/core/internal';
import { UsageError } from '../usage-error.ts';
import { createDashboard, credentialsFromEnv, jobQueueSource, type DashboardServer } from '@jobs/dashboard';
import { isLoopbackHost, namedQueues, requiresLogin } from '@jobs/dashboard/internal';

/**
 * Checks the daemon's dashboard settings before anything starts: tokens long enough, and no
 * address other machines reach without one. Throws {@link UsageError} (exit 2).
 */
export function assertDaemonDashboard(host: string, env: NodeJS.ProcessEnv): void {
  let credentials;
  try {
    credentials = credentialsFromEnv(env);
  } catch (error) {
    throw new UsageError(isJobsError(error) ? error.message.replace('operatorToken', 'JOBS_DASHBOARD_TOKEN').replace('viewerToken', 'JOBS_DASHBOARD_VIEWER_TOKEN').replace('sessionSecret', 'JOBS_DASHBOARD_SESSION_SECRET').replace(/\btokens\[(\d+)\]/g, (_, n: string) => `JOBS_DASHBOARD_TOKENS entry ${Number(n) + 1}`) : String(error));
  }
  if (!isLoopbackHost(host) && !requiresLogin(credentials)) {
    throw new UsageError(`--dashboard-host ${host} is reachable from other machines: set JOBS_DASHBOARD_TOKEN (and JOBS_DASHBOARD_VIEWER_TOKEN for read-only users, or JOBS_DASHBOARD_TOKENS for labelled ones) in the environment first`);
  }
}

/**
 * Starts the daemon's dashboard: the queues the reclaimer sweeps, on a Redis connection of its
 * own, with tokens from the environment (`JOBS_DASHBOARD_TOKEN`, `JOBS_DASHBOARD_VIEWER_TOKEN`,
 * the labelled `JOBS_DASHBOARD_TOKENS`)
 * and the session secret replicas share (`JOBS_DASHBOARD_SESSION_SECRET`).
 * Resolves with the server; its `close()` also closes the connection.
 */
export async function startDaemonDashboard(options: {
  redis: RedisConnectionInput;
  queues: () => readonly string[];
  port: number;
  host: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
}): Promise<DashboardServer> {
  const credentials = credentialsFromEnv(options.env);
  const { client, owned } = connectRedis(options.redis, 'jobs:dashboard', { maxRetriesPerRequest: 1, commandTimeout: 10_000 });
  const dashboard = createDashboard({ source: jobQueueSource(namedQueues(client, options.queues)), credentials, logger: options.logger });
  let server: DashboardServer;
  try {
    server = await dashboard.listen({ port: options.port, host: options.host });
  } catch (error) {
    if (owned) await closeClient(client);
    throw error;
  }
  options.logger.info({ url: server.url, login: requiresLogin(credentials) ? 'token' : 'none (loopback only)' }, 'serving the dashboard');
  return {
    ...server,
    close: async () => {
      await dashboard.close();
      if (owned) await closeClient(client);
    },
  };
}
