import { assertDedupeKey, DEDUPE_STATE_LETTERS, type DedupeState } from '../dedupe-options.ts';
import { InvalidArgumentError } from '../errors.ts';
import { KIND_NAME_PATTERN } from '../kinds.ts';
import { withRedisErrors } from '../redis-connection.ts';
import type { QueueContext } from './queue-context.ts';

/** Who owns a dedupe (or unique) key, as {@link Queue.dedupeOwner} reads it. */
export interface DedupeOwner {
  /** The job the key names. */
  readonly jobId: string;
  /** That job's status, or null when its hash is gone. */
  readonly status: string | null;
  /** The states in which it holds the key (from its hash; empty when its hash is gone). */
  readonly states: readonly DedupeState[];
  /** True when the key holds for a period of its own, whatever becomes of the job (unknown, false, once the hash is gone). */
  readonly period: boolean;
  /**
   * Whether an enqueue with this key now would be absorbed (see scripts/lib/dedupe.lua). A key
   * whose job's hash is gone counts as holding: the scripts delete a key with its job's hash
   * unless it holds for a period of its own.
   */
  readonly holding: boolean;
}

const STATUS_STATE: Readonly<Record<string, DedupeState>> = { pending: 'waiting', 'waiting-children': 'waiting', delayed: 'delayed', processing: 'running', completed: 'completed', failed: 'failed', cancelled: 'cancelled' };

/** See {@link Queue.dedupeOwner}. */
export async function dedupeOwner<P>(ctx: QueueContext<P>, kind: string, key: string): Promise<DedupeOwner | null> {
  if (typeof kind !== 'string' || !KIND_NAME_PATTERN.test(kind)) throw new InvalidArgumentError('kind', 'expected a kind name');
  assertDedupeKey('key', key);
  await ctx.ready();
  const name = ctx.keys.dedupe(kind, key);
  const jobId = await withRedisErrors(() => ctx.client.get(name));
  if (jobId === null) return null;
  const [found, letters] = await withRedisErrors(() => ctx.client.hmget(ctx.keys.job(jobId), 'status', 'dedupe_states'));
  const status = found ?? null;
  const text = letters ?? '';
  const states = (Object.entries(DEDUPE_STATE_LETTERS) as [DedupeState, string][]).filter(([, letter]) => text.includes(letter)).map(([state]) => state);
  const period = text.includes('+');
  const state = status === null ? undefined : STATUS_STATE[status];
  const holding = status === null ? true : state !== undefined && states.includes(state);
  return { jobId, status, states, period, holding };
}
