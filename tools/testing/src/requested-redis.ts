import type { RedisMode } from './redis-mode.ts';

/**
 * The kind of Redis this run was asked for, from `JOBS_TEST_REDIS`: unset or `single` for one
 * server, `cluster` for a Redis Cluster. Read where no test runs (the vitest config and the
 * global set-up); tests ask `redisMode()` instead.
 */
export function requestedRedisMode(env: NodeJS.ProcessEnv = process.env): RedisMode {
  const value = env.JOBS_TEST_REDIS ?? '';
  if (value === '' || value === 'single') return 'single';
  if (value === 'cluster') return 'cluster';
  throw new Error(`JOBS_TEST_REDIS must be "single" or "cluster", got ${JSON.stringify(value)}`);
}
