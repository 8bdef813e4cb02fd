import { partitionName } from './partitions.ts';

/**
 * The queue whose worker registry holds the workers of queue `name`, among the queues `names`
 * served together: a partitioned queue keeps its registry in partition 0, so for partition
 * `BASE:p<i>` (i ≥ 1) that is `BASE:p0` when it is served too; else `name` itself.
 */
export function registryHolderOf(name: string, names: ReadonlySet<string>): string {
  const match = /^(.+):p([1-9]\d{0,3})$/.exec(name);
  if (!match) return name;
  const first = partitionName(match[1] as string, 0);
  return names.has(first) ? first : name;
}
