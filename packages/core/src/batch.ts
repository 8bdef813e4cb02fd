import { addToBatch, openBatch, readBatch, sealBatch, type BatchState, type PreparedBatch } from './commands/batch.ts';
import type { EnqueueRequest, EnqueueResult } from './commands/enqueue.ts';
import type { PartitionRouting } from './partition-routing.ts';
import type { Partition } from './partition.ts';

/**
 * A batch of jobs with callbacks (see `Queue.batch`): add jobs, any number and any kinds, then
 * seal it. The batch is opened in Redis with the first `add` (or `seal`). All of a batch's jobs
 * go to one partition, the one its id picks, where its counts live.
 */
export class Batch<P> {
  /** The batch's id: give it to `batchState`, `jobsctl batches`. */
  readonly id: string;
  readonly #routing: PartitionRouting<P>;
  readonly #prepared: PreparedBatch;
  #opened: Promise<Partition<P>> | undefined;

  /** @internal Made by `Queue.batch`, which checked and encoded the options. */
  constructor(routing: PartitionRouting<P>, prepared: PreparedBatch) {
    this.#routing = routing;
    this.id = prepared.id;
    this.#prepared = prepared;
  }

  #open(): Promise<Partition<P>> {
    this.#opened ??= (async () => {
      const partition = batchPartition(this.#routing, this.id);
      await this.#routing.ensureLayout();
      await openBatch(partition.ctx, this.#prepared);
      return partition;
    })().catch((error: unknown) => {
      this.#opened = undefined;
      throw error;
    });
    return this.#opened;
  }

  /**
   * Adds jobs to the batch: each is checked first (one bad job and none is written), then they
   * are written 1,000 per call, in order, so a batch of 100,000 jobs takes 100 calls, not one
   * giant one. Results in input order; a job absorbed by its `dedupe` key is not in the batch.
   * Throws `JOBS_BATCH_CLOSED` once the batch is sealed.
   */
  async add(jobs: readonly EnqueueRequest<P>[]): Promise<EnqueueResult[]> {
    const partition = await this.#open();
    return addToBatch(partition.ctx, this.id, jobs);
  }

  /**
   * Seals the batch: no job may join it any more. Once every job has ended (at once, if they all
   * have), it fires `onComplete`, and `onSuccess` when every one completed. Safe to repeat.
   */
  async seal(): Promise<BatchState> {
    const partition = await this.#open();
    return sealBatch(partition.ctx, this.id);
  }

  /** The batch's counts and callbacks, or null before its first `add` or `seal`. */
  state(): Promise<BatchState | null> {
    return readBatch(batchPartition(this.#routing, this.id).ctx, this.id);
  }
}

/** The partition that holds batch `id`: its id is its partition key. */
export function batchPartition<P>(routing: PartitionRouting<P>, id: string): Partition<P> {
  return routing.sole ?? routing.partitionFor({ partitionKey: id });
}
