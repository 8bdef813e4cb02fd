export { startRedisServer } from './redis-server.ts';
export type { RedisServer, StartRedisServerOptions } from './redis-server.ts';
export { findFreePort } from './free-port.ts';
export { repoRoot } from './repo-root.ts';
