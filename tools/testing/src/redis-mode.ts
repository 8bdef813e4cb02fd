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

/** How @jobs's scripts run in this test run: as Redis functions (the default) or through EVALSHA. */
export type ScriptsMode = 'functions' | 'eval';

/**
 * How this run's clients send @jobs's scripts: `eval` when the run's `redisUrl` names a user
 * without FCALL and FUNCTION (see scripts-only-user.ts), so every verb takes the fallback path.
 * For `test.skipIf(scriptsMode() === 'eval')` on tests about the function library itself.
 */
export function scriptsMode(): ScriptsMode {
  return inject('scriptsMode');
}
