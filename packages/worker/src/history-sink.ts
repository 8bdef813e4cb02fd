import type { Partition, Queue } from '@jobs/core';
import { addHistory, METRICS_SLOT_FIELDS } from '@jobs/core/internal';
import type { HistorySink } from './history-counts.ts';

/**
 * Where a worker of `group` sends its counts for the metrics history, every `intervalMs`: the
 * queue's history keys (a partitioned queue's partition 0's, where its registry is too; reads
 * sum the partitions).
 */
export function historySink<P>(group: Queue<P>, intervalMs: number): { sink: HistorySink; intervalMs: number; fields: number } {
  const ctx = (group.partitions[0] as Partition<P>).ctx;
  return { sink: { add: (counts) => addHistory(ctx, counts) }, intervalMs, fields: METRICS_SLOT_FIELDS };
}
