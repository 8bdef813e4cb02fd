import type { RedisMode, ScriptsMode } from './redis-mode.ts';

// What the global set-up hands every test file through vitest's provide/inject.
declare module 'vitest' {
  export interface ProvidedContext {
    /** The Redis every integration test of this run talks to: `redis://…`, or `redis+cluster://…` for a cluster. */
    redisUrl: string;
    /** Whether `redisUrl` is one server or a Redis Cluster. */
    redisMode: RedisMode;
    /** Whether `redisUrl`'s user runs the scripts as functions or only through EVALSHA. */
    scriptsMode: ScriptsMode;
  }
}

export {};
