import { inject } from 'vitest';
import './provided-context.ts';

/** Which kind of Redis a test run talks to: one server, or a Redis Cluster. */
export type RedisMode = 'single' | 'cluster';

/** The kind of Redis this test run talks to, as the global set-up provided it. */
export function redisMode(): RedisMode {
  return inject('redisMode');
}

/**
 * True when this run's Redis is a cluster. For `test.skipIf(isClusterRun())` on the few tests
 * that cannot run there; say why next to each.
 */
export function isClusterRun(): boolean {
  return redisMode() === 'cluster';
}
