import { InvalidArgumentError } from '../errors.ts';
import type { QueueKeys } from '../keys.ts';
import type { Kinds } from '../kinds.ts';
import type { ResolvedQueueOptions } from '../queue-options.ts';
import { assertRedisVersion, withRedisErrors, type RedisClient } from '../redis-connection.ts';
import type { ScriptSender } from '../script-sender.ts';

/**
 * What every verb of a queue works with: its connection, keys and policy, and the one way to
 * send its scripts. Each partition of a {@link Queue} makes one and hands it to each command; nothing here
 * changes after the queue is made.
 */
export interface QueueContext<P = unknown> {
  readonly name: string;
  readonly client: RedisClient;
  readonly keys: QueueKeys;
  readonly kinds: Kinds<P>;
  readonly options: ResolvedQueueOptions;
  readonly scripts: ScriptSender;
  /** The events channel, or `''` when events are off. */
  readonly channel: string;
  /**
   * `'1'` lets completions skip their events when nobody subscribes: exact on one server. In a
   * cluster a subscriber may sit on another node, where the script cannot see it: `'0'`.
   */
  readonly onlyHeard: '0' | '1';
  /** The event log's cap as the scripts take it: `'0'` when the log is off. */
  readonly logMaxLen: string;
  /** `'1'` when the queue's metrics history is on (the enqueue scripts count), else `'0'`. */
  readonly metrics: '0' | '1';
  /** This process's id in the event log's entries (`''` when none was given). */
  readonly workerId: string;
  /** Appended to every id this queue makes (a partition's `.p<N>`), or `''`. */
  readonly idSuffix: string;
  /** `'1'`: claims also return each job's stored traceparent (a worker that traces); else `'0'`. */
  readonly traced: '0' | '1';
  /** Resolves once the queue's start-up checks have passed; rejects once it is closed. */
  ready(): Promise<unknown>;
}

/**
 * A queue's start-up checks: the server runs Redis 7 or newer, and the queue's name is not a
 * partitioned queue (whose jobs live in its partitions: writing to the name itself would strand them).
 */
export async function checkAtStart(client: RedisClient, keys: QueueKeys): Promise<void> {
  await assertRedisVersion(client);
  const partitions = await withRedisErrors(() => client.get(keys.partitions));
  if (partitions !== null && Number(partitions) > 1) {
    throw new InvalidArgumentError('partitions', `queue "${keys.name}" is partitioned into ${partitions} (${keys.partitions}): open it with partitions: ${partitions}`);
  }
}
