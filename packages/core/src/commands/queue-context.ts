import type { QueueKeys } from '../keys.ts';
import type { Kinds } from '../kinds.ts';
import type { ResolvedQueueOptions } from '../queue-options.ts';
import type { RedisClient } from '../redis-connection.ts';
import type { ScriptSender } from '../script-sender.ts';

/**
 * What every verb of a queue works with: its connection, keys and policy, and the one way to
 * send its scripts. A {@link JobQueue} makes one and hands it to each command; nothing here
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
  /** This process's id in the event log's entries (`''` when none was given). */
  readonly workerId: string;
  /** Appended to every id this queue makes (a partition's `.p<N>`), or `''`. */
  readonly idSuffix: string;
  /** `'1'`: claims also return each job's stored traceparent (a worker that traces); else `'0'`. */
  readonly traced: '0' | '1';
  /** Resolves once the queue's start-up checks have passed; rejects once it is closed. */
  ready(): Promise<unknown>;
}
