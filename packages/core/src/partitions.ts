import { InvalidArgumentError } from './errors.ts';
import { assertQueueName } from './keys.ts';
import { assertWholeNumber } from './whole-number.ts';

/**
 * How a logical queue spreads over partitions. Partition `i` of queue `NAME` is the ordinary
 * queue `NAME:p<i>` (keys `queue:{NAME:p<i>}:*`): its own hash tag, so each partition's scripts
 * stay atomic in its own slot, and in a cluster the partitions land on different masters. The
 * count is recorded at `queue:{NAME}:partitions`; ids a partition makes end in `.p<i>`.
 */

/** Most partitions a queue may have. */
export const MAX_PARTITIONS = 1_024;

/** The queue name of partition `index` of `name`. */
export function partitionName(name: string, index: number): string {
  return `${name}:p${index}`;
}

/** The queue names of `count` partitions of `name`, each checked (the suffix must still fit). */
export function partitionNames(name: string, count: number): string[] {
  assertQueueName(name);
  assertWholeNumber('partitions', count, 1, MAX_PARTITIONS);
  return Array.from({ length: count }, (_, index) => {
    const partition = partitionName(name, index);
    assertQueueName(partition, 'queue');
    return partition;
  });
}

/** The suffix of ids made by partition `index`. */
export function partitionIdSuffix(index: number): string {
  return `.p${index}`;
}

/** The partition an id names by its suffix, or undefined (an id made elsewhere, or out of range). */
export function partitionOfId(id: string, count: number): number | undefined {
  const match = /\.p(\d{1,4})$/.exec(id);
  if (!match) return undefined;
  const index = Number(match[1]);
  return index < count ? index : undefined;
}

/**
 * The partition of a key: FNV-1a (32-bit) of its UTF-8 bytes, modulo the count. Stable across
 * processes, versions and languages, so every producer (and any port) sends a key to the same
 * partition, and the jobs of one key keep their order.
 */
export function partitionOfKey(key: string, count: number): number {
  if (typeof key !== 'string' || key.length === 0 || key.length > 512) throw new InvalidArgumentError('partitionKey', 'expected a string of 1 to 512 characters');
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % count;
}
