import { startRedisCluster, startRedisServer } from '@jobs/dev-redis';
import type { TestProject } from 'vitest/node';
import { isClusterUrl } from './cluster-url.ts';
import { requestedRedisMode, requestedScriptsMode } from './requested-redis.ts';
import { scriptsOnlyUrl } from './scripts-only-user.ts';

import './provided-context.ts';

/**
 * vitest globalSetup. By default the tests get one Redis server: `REDIS_URL` when set, else a
 * private redis-server started on a free loopback port for the whole run and stopped after it.
 * With `JOBS_TEST_REDIS=cluster` they get a Redis Cluster instead: `REDIS_CLUSTER_URL` when set
 * (a `redis+cluster://` URL), else a private cluster of 3 masters with a replica each. With
 * `JOBS_TEST_SCRIPTS=eval` (one server) they connect as a user without functions, so every script
 * runs through EVALSHA. Tests isolate themselves by queue name, never by flushing.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const mode = requestedRedisMode();
  const scripts = requestedScriptsMode();
  if (scripts === 'eval' && mode === 'cluster') throw new Error('JOBS_TEST_SCRIPTS=eval runs against one server, not a cluster');
  project.provide('scriptsMode', scripts);
  // With JOBS_TEST_SCRIPTS=eval the tests talk to Redis as a user without functions.
  const provideUrl = async (url: string): Promise<void> => project.provide('redisUrl', scripts === 'eval' ? await scriptsOnlyUrl(url) : url);
  const external = mode === 'cluster' ? process.env.REDIS_CLUSTER_URL : process.env.REDIS_URL;
  if (external) {
    if (mode === 'cluster' && !isClusterUrl(external)) throw new Error('REDIS_CLUSTER_URL must be a redis+cluster://host:port,... URL');
    await provideUrl(external);
    project.provide('redisMode', isClusterUrl(external) ? 'cluster' : 'single');
    return undefined;
  }
  project.provide('redisMode', mode);
  if (mode === 'cluster') {
    // A busy master on a loaded machine (a script of 10,000 jobs under a CPU hog) may stay silent
    // past a second: with the default node timeout its replica would take over and drop the
    // writes it had not copied yet. The suites test failovers on clusters of their own.
    const cluster = await startRedisCluster({ nodeTimeoutMs: 15_000 });
    project.provide('redisUrl', cluster.url);
    return () => cluster.stop();
  }
  const server = await startRedisServer({ name: `test-${project.name || 'run'}` });
  await provideUrl(server.url);
  return () => server.stop();
}
