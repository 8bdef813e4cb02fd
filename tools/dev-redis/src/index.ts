export { startRedisServer } from './redis-server.ts';
export type { RedisServer, StartRedisServerOptions } from './redis-server.ts';
export { startRedisCluster } from './redis-cluster.ts';
export type { ClusterMaster, ClusterSeed, RedisCluster, RedisClusterNode, StartRedisClusterOptions } from './redis-cluster.ts';
export type { SlotRange } from './cluster-nodes.ts';
export { onNode } from './ask-node.ts';
export { findFreePort } from './free-port.ts';
export { repoRoot } from './repo-root.ts';
export { killOnExit } from './exit-with-parent.ts';
