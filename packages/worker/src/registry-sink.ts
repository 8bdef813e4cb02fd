import { hostname } from 'node:os';
import type { Partition, Queue } from '@jobs/core';
import { leaveRegistry, sendHeartbeat } from '@jobs/core/internal';
import type { HeartbeatSink } from './heartbeats.ts';
import { workerPackageVersion } from './worker-version.ts';

/** A worker counts as alive for this many heartbeat intervals after each heartbeat. */
export const HEARTBEAT_TTL_INTERVALS = 3;

/**
 * Where worker `id` of `group` heartbeats, every `intervalMs`: its queue's registry (a
 * partitioned queue's is partition 0's), with what does not change read once here.
 */
export function registrySink<P>(group: Queue<P>, id: string, concurrency: number, intervalMs: number): HeartbeatSink {
  const ctx = (group.partitions[0] as Partition<P>).ctx;
  const fixed = { id, host: hostname(), pid: process.pid, version: workerPackageVersion(), kinds: group.kinds.names, concurrency, ttlMs: intervalMs * HEARTBEAT_TTL_INTERVALS };
  return {
    beat: (running, startedAtMs) => sendHeartbeat(ctx, { ...fixed, running, startedAtMs }),
    leave: () => leaveRegistry(ctx, id),
  };
}
