import type { Kinds, Partition } from '@jobs/core';

/** The calls a worker lane makes on a partition: each is documented on `Partition`, and on `Queue` as a verb. */
type LaneVerb =
  | 'claim'
  | 'waitForWork'
  | 'completeManyAndClaim'
  | 'fail'
  | 'rateLimited'
  | 'renewLeases'
  | 'extendLease'
  | 'progress'
  | 'snooze'
  | 'handOff'
  | 'checkpoint'
  | 'checkpointed'
  | 'appendLogs'
  | 'children'
  | 'release'
  | 'reclaimStuck'
  | 'unparkFreed';

/**
 * What the worker's scheduling needs from one queue (or one partition of a partitioned queue):
 * the claim source it takes work from and reports outcomes to, as `Partition` declares it (so a
 * new lane verb is written there once). Each of a `Queue`'s `partitions` is one; unit tests pass
 * a fake, so the scheduling runs without Redis.
 */
export type LaneQueue = Pick<Partition<unknown>, 'name' | LaneVerb> & {
  /** The lease length a claim gives by default and the attempts a job gets by default. */
  readonly options: Pick<Partition<unknown>['options'], 'visibilityMs' | 'maxAttempts'>;
};

/** The queue a worker serves: its lanes (one per partition) and what applies to all of them. */
export interface QueueGroup<P> {
  readonly kinds: Kinds<P>;
  /** One per partition; one for a plain queue. */
  readonly partitions: readonly LaneQueue[];
  /** Checks the partition count against the one Redis recorded; rejects on a mismatch. */
  ensureLayout(): Promise<void>;
  /** The live workers of the queue's registry (see `Queue.workers`); none known when absent. */
  liveWorkers?(): Promise<readonly { readonly kinds: readonly string[] }[]>;
  /** Closes the connections the group opened. */
  close(): Promise<void>;
}
