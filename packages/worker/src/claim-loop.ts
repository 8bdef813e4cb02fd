import type { ClaimedJob } from '@jobs/core';
import { pause, type Clock } from './clock.ts';
import type { ClaimSlots } from './completion-batcher.ts';
import type { Lane } from './lane.ts';
import { LaneTurns } from './lane-turns.ts';
import type { Slots } from './slots.ts';

/** Most jobs one claim asks for. */
const MAX_CLAIM_BATCH = 100;
/** The longest the fetch loop waits for the delayed-job notices to be subscribed before its first claim. */
const NOTICES_FIRST_MAX_MS = 2_000;
/** At low load, the longest the fetch loop waits for completions in flight before it claims (see ClaimLoop.#completionsFirst). */
const COMPLETIONS_FIRST_MAX_MS = 10;

/** Failures in a row of one kind of call, and the wait each earns: 100 ms, doubling, at most 5 s. */
export class ClaimBackoff {
  #failures = 0;

  /** One more failure: how long to wait before trying again (ms). */
  next(): number {
    this.#failures += 1;
    return Math.min(5_000, 50 * 2 ** this.#failures);
  }

  /** A call succeeded: the next failure waits the shortest time again. */
  reset(): void {
    this.#failures = 0;
  }
}

/**
 * Claims work into the worker's free slots: the fetch loop, and the claims that ride on each
 * lane's completion batches. A plain queue's fetch loop blocks in Redis until work comes; a
 * partitioned one claims from the lane whose turn it is (see {@link LaneTurns}) and, when every
 * lane looks empty, blocks on all of them at once.
 */
export class ClaimLoop {
  readonly #slots: Slots;
  readonly #clock: Clock;
  readonly #stop: AbortSignal;
  readonly #reportError: (error: unknown, message: string) => void;
  /** A plain queue's claim waits in Redis this long for work at most, then claims again. */
  readonly #blockMs: number;
  #lanes: readonly Lane[] = [];
  #turns: LaneTurns | undefined;
  /**
   * A plain queue's last claim came back with fewer jobs than it asked for. Completion batches
   * then claim nothing: the fetch loop claims the slots they free (it blocks until work is
   * pushed), and at low load a batch's claim would find pending empty every time, a third of a
   * lone completion's script. The next full claim (the fetch loop's) turns batch claims back on.
   */
  #pendingLookedEmpty = false;
  /** Failed claims in a row made alongside another lane's completion batch. */
  readonly #aheadBackoff = new ClaimBackoff();
  /** Claims made alongside another lane's completion batch, still in flight (shutdown waits for them). */
  readonly #claimsAhead = new Set<Promise<void>>();
  /** Told to stop claiming (see {@link quiet}): the fetch loop waits, completion batches claim nothing. */
  #quiet = false;
  /** Claims in flight of every sort (the fetch loop's, those alongside another lane's batch, completion batches'). */
  #inFlight = 0;
  /** Resolved once quiet with no claim in flight (see {@link quiet}). */
  #settledWaiters: (() => void)[] = [];
  /** Aborts the claim in flight (a blocking wait) when the worker stops, goes quiet or gets more slots. */
  #claimStop = new AbortController();
  #loop: Promise<void> = Promise.resolve();
  #markStarted: (started: boolean) => void = () => undefined;
  /** Settles when the fetch loop is about to claim for the first time (true), or the worker stopped before (false). */
  readonly started: Promise<boolean>;

  /** `stop` aborts when the worker closes; `reportError` hears what goes wrong; `blockMs`: see {@link #blockMs}. */
  constructor(slots: Slots, clock: Clock, stop: AbortSignal, reportError: (error: unknown, message: string) => void, blockMs = 1_000) {
    this.#slots = slots;
    this.#blockMs = blockMs;
    this.#clock = clock;
    this.#stop = stop;
    this.#reportError = reportError;
    this.started = new Promise((resolve) => {
      this.#markStarted = resolve;
    });
    stop.addEventListener('abort', () => this.#claimStop.abort(), { once: true });
  }

  /** True while told to claim nothing (see {@link quiet}). */
  get isQuiet(): boolean {
    return this.#quiet;
  }

  /** Quiet with no claim in flight: no job comes in any more. */
  get settledQuiet(): boolean {
    return this.#quiet && this.#inFlight === 0;
  }

  /**
   * Stops claiming: the fetch loop claims nothing more (its blocking claim in flight is ended),
   * nor do completion batches, until {@link resume}. Resolves once no claim is in flight, from
   * when on no job comes in; running and waiting jobs go on.
   */
  quiet(): Promise<void> {
    if (!this.#quiet) {
      this.#quiet = true;
      this.interrupt();
    }
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#settledWaiters.push(resolve));
  }

  /** Claims again after {@link quiet}. */
  resume(): void {
    if (!this.#quiet) return;
    this.#quiet = false;
    this.#slots.wakeWaiters();
  }

  /** Ends the fetch loop's blocking claim in flight, so that it claims again with what is true now (quiet, or more slots). */
  interrupt(): void {
    if (this.#stop.aborted) return;
    this.#claimStop.abort();
    this.#claimStop = new AbortController();
    this.#slots.wakeWaiters();
  }

  #claimStarted(): void {
    this.#inFlight += 1;
  }

  #claimEnded(): void {
    this.#inFlight -= 1;
    if (this.#inFlight > 0 || !this.#quiet || this.#settledWaiters.length === 0) return;
    const waiters = this.#settledWaiters;
    this.#settledWaiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Starts the fetch loop over `lanes`: once `ensureLayout` succeeds (retried with backoff) and
   * `noticesReady` settles (2 s at most), so a delayed job added during the first wait is heard of.
   */
  start(lanes: readonly Lane[], ensureLayout: () => Promise<void>, noticesReady: Promise<void>): void {
    this.#lanes = lanes;
    this.#turns = new LaneTurns(lanes, this.#clock, this.#stop);
    this.#loop = this.#run(ensureLayout, noticesReady);
  }

  /** The worker stopped: {@link started} settles false if it has not settled yet. */
  abandonStart(): void {
    this.#markStarted(false);
  }

  /** Settles when the fetch loop has ended (once the worker stops and its claim in flight answers). */
  get loopEnded(): Promise<void> {
    return this.#loop;
  }

  /** Settles once the fetch loop and every claim made alongside a completion batch have ended. */
  async allEnded(): Promise<void> {
    await Promise.allSettled([this.#loop, ...this.#claimsAhead]);
  }

  /**
   * How `lane`'s completion batches claim: each batch's jobs pass their slots to the jobs it
   * claims, plus the slots free then. With partitions, only the lane whose turn it is claims
   * with its batches; another lane's batch claims nothing, and as many jobs are claimed from the
   * lane whose turn it is at once, alongside the batch (they start as the batch frees their
   * slots), so a change of turn costs no round trip.
   */
  batchClaimsOf(lane: Lane): ClaimSlots {
    return {
      reserve: (completing: number): number => {
        if (this.#stop.aborted || this.#quiet || this.#pendingLookedEmpty) return 0;
        // The completing jobs' slots, less those a lowered concurrency took away.
        const free = this.#slots.free();
        const room = completing + Math.min(0, free);
        if (room <= 0) return 0;
        if (this.#lanes.length > 1) {
          const focus = (this.#turns as LaneTurns).current();
          if (focus !== lane) {
            if (focus) this.#claimAhead(focus, Math.min(room, MAX_CLAIM_BATCH));
            return 0;
          }
        }
        const extra = Math.max(0, free);
        this.#slots.reserve(extra);
        this.#claimStarted();
        return room + extra;
      },
      claimed: (jobs, reserved, completing) => {
        this.#slots.unreserve(Math.max(0, reserved - completing));
        if (reserved > 0) {
          this.#claimEnded();
          lane.claimed(jobs.length, this.#clock.now());
          this.#noteClaim(jobs.length, reserved);
        }
        for (const job of jobs) this.#slots.hold(job, lane);
        this.#slots.startWaiting();
      },
      // The jobs are completed on the primary; a failover before the replicas catch up would
      // run them again (at-least-once holds). Said, not thrown.
      notReplicated: (error) => this.#reportError(error, 'completions not yet on the replicas'),
    };
  }

  /** Claims while there are free slots, until the worker stops. */
  async #run(ensureLayout: () => Promise<void>, noticesReady: Promise<void>): Promise<void> {
    const stop = this.#stop;
    const slots = this.#slots;
    const backoff = new ClaimBackoff();
    // A partition count that differs from the one Redis recorded would leave partitions unserved.
    while (!stop.aborted) {
      try {
        // A close does not wait for the check's answer (a Redis that accepts and never replies).
        await untilStopped(ensureLayout(), stop);
        break;
      } catch (error) {
        if (stop.aborted) break;
        this.#reportError(error, 'the worker could not start: Redis did not answer it, or the partition layout does not match (it keeps trying)');
        await pause(this.#clock, backoff.next(), stop);
      }
    }
    backoff.reset();
    // Listening before the first wait, so a delayed job added during it is heard of (but not
    // for long: with Redis away, the claims report it).
    await pause(this.#clock, NOTICES_FIRST_MAX_MS, stop, noticesReady);
    this.#markStarted(!stop.aborted);
    const single = this.#lanes.length === 1;
    const turns = this.#turns as LaneTurns;
    while (!stop.aborted) {
      if (this.#quiet || slots.free() <= 0) {
        await slots.whenFreed();
        continue;
      }
      const lane = single ? (this.#lanes[0] as Lane) : turns.current();
      if (!lane) {
        await turns.waitForAny();
        continue;
      }
      if (single && this.#pendingLookedEmpty) {
        await this.#completionsFirst(lane);
        if (stop.aborted) break;
      }
      const wanted = slots.free();
      if (wanted <= 0) continue;
      await this.#claimOnce(lane, Math.min(wanted, MAX_CLAIM_BATCH), single ? this.#blockMs : 0, backoff);
    }
  }

  /**
   * At low load (a plain queue's last claim came back short), the blocking claim that waits for
   * the next job is sent only once the completions in flight have answered: sent at once, its
   * writes come between a lone completion and its reply, which the worker then reads late. A job
   * pushed meanwhile waits for that round trip, and never longer than
   * {@link COMPLETIONS_FIRST_MAX_MS}: completions that never pause (a busy worker whose claims
   * still come back short) must not keep it from claiming.
   */
  async #completionsFirst(lane: Lane): Promise<void> {
    // A turn of the event loop first: the completions of the jobs just started are sent by then.
    await new Promise((resolve) => setImmediate(resolve));
    if (lane.completions.busy) await pause(this.#clock, COMPLETIONS_FIRST_MAX_MS, this.#stop, lane.completions.idle());
  }

  /** A claim on `lane` alongside another lane's completion batch; shutdown waits for it. */
  #claimAhead(lane: Lane, wanted: number): void {
    const claim = this.#claimOnce(lane, wanted, 0, this.#aheadBackoff).finally(() => this.#claimsAhead.delete(claim));
    this.#claimsAhead.add(claim);
  }

  /** One claim on `lane` for up to `wanted` jobs (waiting up to `blockMs` for work); its jobs start as slots allow. */
  async #claimOnce(lane: Lane, wanted: number, blockMs: number, backoff: ClaimBackoff): Promise<void> {
    const slots = this.#slots;
    slots.reserve(wanted);
    this.#claimStarted();
    let jobs: ClaimedJob[];
    try {
      jobs = await lane.queue.claim({ max: wanted, blockMs, signal: this.#claimStop.signal });
    } catch (error) {
      // The slots go back before the back-off: they are not this claim's while it waits.
      slots.unreserve(wanted);
      this.#claimEnded();
      if (this.#stop.aborted) return;
      this.#reportError(error, 'claim failed');
      await pause(this.#clock, backoff.next(), this.#stop);
      return;
    }
    slots.unreserve(wanted);
    this.#claimEnded();
    lane.claimed(jobs.length, this.#clock.now());
    this.#noteClaim(jobs.length, wanted);
    backoff.reset();
    // Jobs claimed while stopping still run (or are handed back): a claimed job is never dropped.
    for (const job of jobs) slots.hold(job, lane);
    slots.startWaiting();
  }

  /** A claim asked for `wanted` jobs and got `got`: see {@link #pendingLookedEmpty} (plain queues only). */
  #noteClaim(got: number, wanted: number): void {
    if (this.#lanes.length === 1) this.#pendingLookedEmpty = got < wanted;
  }
}

/** Settles with `promise`, or resolves as soon as `stop` aborts. */
async function untilStopped(promise: Promise<void>, stop: AbortSignal): Promise<void> {
  let onAbort = (): void => undefined;
  const stopped = new Promise<void>((resolve) => {
    onAbort = resolve;
    stop.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([promise, stopped]);
  } finally {
    stop.removeEventListener('abort', onAbort);
  }
}
