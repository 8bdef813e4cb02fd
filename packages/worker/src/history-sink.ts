import type { Partition, Queue } from '@jobs/core';
import { addHistory, METRICS_SLOT_FIELDS } from '@jobs/core/internal';
import type { HistorySink } from './history-counts.ts';

/**
 * Where a worker of `group` sends its counts for the metrics history, every `intervalMs`: the
 * history keys of the partition each job came from (a plain queue's own), which reads sum.
 */
export function historySink<P>(group: Queue<P>, intervalMs: number): { sink: HistorySink; intervalMs: number; fields: number } {
  const byName = new Map(group.partitions.map((partition) => [partition.name, partition.ctx]));
  const first = (group.partitions[0] as Partition<P>).ctx;
  return { sink: { add: (partition, counts) => addHistory(byName.get(partition) ?? first, counts) }, intervalMs, fields: METRICS_SLOT_FIELDS };
}
