import type { ClaimedJob } from '@jobs/core';
import type { Clock, TimerHandle } from './clock.ts';
import type { LaneQueue } from './lane-queue.ts';
import type { WorkerMetrics } from './worker-metrics.ts';

/** A job whose lease is being kept. */
interface LeasedJob {
  readonly job: ClaimedJob;
  /** Each renewal makes the lease this long from now. */
  leaseMs: number;
  /** Called once when a renewal finds the claim lost; `cancelled` when the job was cancelled while it ran. */
  readonly onLost: (cancelled: boolean) => void;
}

/**
 * Keeps the leases of a worker's running jobs alive (keyed by claim token: the same job claimed
 * again is another claim): one `renewLeases` call per tick for all of them (one per distinct lease length), every third of the shortest lease, so a lease is
 * renewed twice before it could expire. A job whose renewal comes back empty was reclaimed (or
 * cancelled while it ran): its `onLost` runs and it is no longer renewed.
 */
export class LeaseKeeper {
  readonly #queue: Pick<LaneQueue, 'renewLeases'>;
  readonly #onError: (error: unknown) => void;
  readonly #clock: Clock;
  readonly #metrics: WorkerMetrics | undefined;
  readonly #jobs = new Map<string, LeasedJob>();
  #timer: TimerHandle | undefined;
  #nextTickAt = Number.POSITIVE_INFINITY;
  #ticking: Promise<void> | undefined;
  #stopped = false;

  /** `metrics`, when given, counts the renewals. */
  constructor(queue: Pick<LaneQueue, 'renewLeases'>, onError: (error: unknown) => void, clock: Clock, metrics?: WorkerMetrics) {
    this.#queue = queue;
    this.#onError = onError;
    this.#clock = clock;
    this.#metrics = metrics;
  }

  /** Starts keeping `job`'s lease, renewing it for `leaseMs` each time. */
  add(job: ClaimedJob, leaseMs: number, onLost: (cancelled: boolean) => void): void {
    this.#jobs.set(job.token, { job, leaseMs, onLost });
    this.#scheduleBy(this.#clock.now() + leaseMs / 3);
  }

  /** Renews `job` for `leaseMs` from now on, from the next tick. */
  setLeaseMs(job: ClaimedJob, leaseMs: number): void {
    const entry = this.#jobs.get(job.token);
    if (!entry) return;
    entry.leaseMs = leaseMs;
    this.#scheduleBy(this.#clock.now() + leaseMs / 3);
  }

  /** Stops keeping `job`'s lease. */
  remove(job: ClaimedJob): void {
    this.#jobs.delete(job.token);
  }

  #scheduleBy(at: number): void {
    if (this.#stopped || this.#ticking || at >= this.#nextTickAt) return;
    this.#clock.clearTimeout(this.#timer);
    this.#nextTickAt = at;
    this.#timer = this.#clock.setTimeout(() => void this.#tick(), Math.max(0, at - this.#clock.now()));
  }

  async #tick(): Promise<void> {
    this.#timer = undefined;
    this.#nextTickAt = Number.POSITIVE_INFINITY;
    const byLength = new Map<number, LeasedJob[]>();
    for (const entry of this.#jobs.values()) {
      const group = byLength.get(entry.leaseMs);
      if (group) group.push(entry);
      else byLength.set(entry.leaseMs, [entry]);
    }
    this.#ticking = (async () => {
      for (const [leaseMs, entries] of byLength) {
        try {
          const deadlines = await this.#queue.renewLeases(entries.map((entry) => entry.job), leaseMs);
          let renewed = 0;
          deadlines.forEach((deadline, index) => {
            const entry = entries[index] as LeasedJob;
            if (typeof deadline === 'number') renewed += 1;
            else if (this.#jobs.get(entry.job.token) === entry) {
              this.#jobs.delete(entry.job.token);
              entry.onLost(deadline === 'cancelled');
            }
          });
          this.#metrics?.renewed(renewed);
        } catch (error) {
          // Redis hiccup: try again at the next tick; the lease still has two thirds to go.
          this.#onError(error);
        }
      }
    })();
    await this.#ticking;
    this.#ticking = undefined;
    let shortest = Number.POSITIVE_INFINITY;
    for (const entry of this.#jobs.values()) shortest = Math.min(shortest, entry.leaseMs);
    if (shortest !== Number.POSITIVE_INFINITY) this.#scheduleBy(this.#clock.now() + shortest / 3);
  }

  /** Stops renewing; waits for a renewal in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#ticking;
    this.#jobs.clear();
  }
}
