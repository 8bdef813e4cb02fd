import { hostname } from 'node:os';
import type { Partition, Queue } from '@jobs/core';
import { leaveRegistry, sendHeartbeat, type HeartbeatReceipt } from '@jobs/core/internal';
import type { HeartbeatSink } from './heartbeats.ts';
import { workerPackageVersion } from './worker-version.ts';

/** A worker counts as alive for this many heartbeat intervals after each heartbeat. */
export const HEARTBEAT_TTL_INTERVALS = 3;

/** What a worker's heartbeat reads of it each time: what may change while it runs. */
export interface HeartbeatState {
  readonly concurrency: number;
  readonly quiet: boolean;
}

/**
 * Where worker `id` of `group` heartbeats, every `intervalMs`: its queue's registry (a
 * partitioned queue's is partition 0's), with what does not change read once here, `state`
 * read at each heartbeat, and each reply (the orders stored for the worker) handed to `onReceipt`.
 */
export function registrySink<P>(group: Queue<P>, id: string, batchMax: number, intervalMs: number, state: () => HeartbeatState, onReceipt: (receipt: HeartbeatReceipt) => void): HeartbeatSink {
  const ctx = (group.partitions[0] as Partition<P>).ctx;
  const fixed = { id, host: hostname(), pid: process.pid, version: workerPackageVersion(), kinds: group.kinds.names, batchMax, ttlMs: intervalMs * HEARTBEAT_TTL_INTERVALS };
  return {
    beat: async (running, startedAtMs) => {
      const receipt = await sendHeartbeat(ctx, { ...fixed, ...state(), running, startedAtMs });
      onReceipt(receipt);
      return receipt;
    },
    leave: () => leaveRegistry(ctx, id),
  };
}
