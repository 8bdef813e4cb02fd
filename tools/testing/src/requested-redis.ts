import type { RedisMode, ScriptsMode } from './redis-mode.ts';

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

/**
 * How this run asks for @jobs's scripts to run, from `JOBS_TEST_SCRIPTS`: unset or `functions`
 * as a client does by default (FCALL of the function library), `eval` through the fallback a
 * server or user without functions gets (EVALSHA). Read where no test runs; tests ask
 * `scriptsMode()` instead.
 */
export function requestedScriptsMode(env: NodeJS.ProcessEnv = process.env): ScriptsMode {
  const value = env.JOBS_TEST_SCRIPTS ?? '';
  if (value === '' || value === 'functions') return 'functions';
  if (value === 'eval') return 'eval';
  throw new Error(`JOBS_TEST_SCRIPTS must be "functions" or "eval", got ${JSON.stringify(value)}`);
}
