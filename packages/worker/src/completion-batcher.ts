import type { ClaimedJob, CompleteOutcome, JobQueue } from '@jobs/core';

interface Waiting {
  job: ClaimedJob;
  result: unknown;
  resolve: (outcome: CompleteOutcome) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 256;

/**
 * Completes jobs in batches: one script call (one round trip) for every completion that came
 * in while the previous call was in flight. At low load a batch is one job and nothing waits;
 * at high load round trips stop growing with the number of jobs.
 */
export class CompletionBatcher {
  readonly #queue: JobQueue<unknown>;
  #waiting: Waiting[] = [];
  #busy = false;

  constructor(queue: JobQueue<unknown>) {
    this.#queue = queue;
  }

  /** Completes `job` with `result` in the next batch. */
  complete(job: ClaimedJob, result: unknown): Promise<CompleteOutcome> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ job, result, resolve, reject });
      if (!this.#busy) {
        this.#busy = true;
        // Let every handler that finishes in this turn of the event loop join the batch.
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, MAX_BATCH);
      try {
        const outcomes = await this.#queue.completeSettled(batch);
        batch.forEach((entry, index) => entry.resolve(outcomes[index] as CompleteOutcome));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.#busy = false;
  }
}
