import { startRedisServer } from '@jobs/dev-redis';
import type { TestProject } from 'vitest/node';

import './provided-context.ts';

/**
 * vitest globalSetup: with REDIS_URL set, tests use that server; otherwise one private
 * redis-server is started on a free loopback port for the whole run and stopped after it.
 * Tests isolate themselves by queue name, never by flushing.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.REDIS_URL;
  if (external) {
    project.provide('redisUrl', external);
    return undefined;
  }
  const server = await startRedisServer({ name: `test-${project.name || 'run'}` });
  project.provide('redisUrl', server.url);
  return () => server.stop();
}
