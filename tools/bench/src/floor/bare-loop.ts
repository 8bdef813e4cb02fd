/**
 * The floor: the claim-and-complete loop a @jobs worker of concurrency 64 runs on a queue full
 * of pending jobs, on one bare socket ({@link RespSocket}), with none of the worker around it
 * (no ioredis, no lease keeping, heartbeats, events or handler machinery). What Node spends per
 * job here is about the least any client of these scripts can spend; the real worker's excess
 * over it is what the client stack costs.
 */
import { performance } from 'node:perf_hooks';
import { jobsAdapter } from '../adapters/jobs.ts';
import type { RespValue } from './resp.ts';
import { RespSocket } from './resp-socket.ts';
import { CLAIM_DONE, CLAIM_STRIDE, WorkerCalls } from './worker-calls.ts';

/** As the worker's completion batcher (packages/worker/src/completion-batcher.ts): calls in flight at once. */
const MAX_IN_FLIGHT = 2;
/** As the worker's claim loop: the most jobs one plain claim asks for. */
const MAX_CLAIM_BATCH = 100;

/**
 * Enqueues `n` jobs on `queue` with the real producer, through the bench's @jobs adapter and in
 * batches of 1000 as the process scenarios do, so the job hashes are exactly the ones the real
 * worker is measured on.
 */
export async function preEnqueue(url: string, queue: string, n: number): Promise<void> {
  const adapter = await jobsAdapter(url, queue);
  try {
    for (let i = 0; i < n; i += 1_000) await adapter.enqueueBulk(Array.from({ length: Math.min(1_000, n - i) }, (_, j) => ({ n: i + j, sentAt: performance.now() })));
  } finally {
    await adapter.close();
  }
}

/** What a bare loop did, besides completing its jobs. */
export interface BareLoopStats {
  /** Jobs completed (every one with CLAIM_DONE). */
  completed: number;
  /** Script calls sent: the first claim, then one per completion batch. */
  calls: number;
}

/** A claim reply's jobs from `at`: what a job needs to be run and completed. */
function* claimedJobs(reply: RespValue[], at: number): Generator<{ id: string; token: string; payload: string }> {
  for (let i = at; i + CLAIM_STRIDE <= reply.length; i += CLAIM_STRIDE) {
    yield { id: reply[i] as string, token: reply[i + 1] as string, payload: reply[i + 5] as string };
  }
}

/**
 * Runs the worker's loop on `queue` until `n` jobs are completed, on a connection of its own
 * (opened and closed here, inside the caller's timed part as a worker's start-up and close are
 * in the real run): a first claim for `concurrency` jobs, then each claimed job is run (its
 * payload parsed, as the worker parses it; the handler is a no-op returning `null`) and its
 * completion batched with the next claim in complete_and_claim, with the completion batcher's
 * rules: at most two calls in flight, at most half the concurrency completions per call, a call
 * sent at the end of the turn's microtasks when none is in flight and a turn later otherwise,
 * each claiming as many jobs as it completes plus the free slots. Once a claim comes back short
 * (pending ran dry), completions go alone in complete.lua, as the worker sends them then.
 * Rejects on any error reply, and on any completion not answered CLAIM_DONE.
 */
export async function runBareLoop(url: string, queue: string, n: number, concurrency = 64): Promise<BareLoopStats> {
  const socket = await RespSocket.open(url);
  try {
    return await new BareLoop(socket, new WorkerCalls(queue), n, concurrency).run();
  } finally {
    await socket.close();
  }
}

class BareLoop {
  readonly #socket: RespSocket;
  readonly #calls: WorkerCalls;
  readonly #n: number;
  readonly #concurrency: number;
  readonly #maxBatch: number;
  /** Completions not sent yet, flat: id, token, result JSON per job. */
  #waiting: string[] = [];
  /** Claimed jobs whose completion is not answered yet (waiting or in flight): each holds a slot. */
  #holding = 0;
  /** Slots promised to the claims in flight beyond their completions' own. */
  #reserved = 0;
  #inFlight = 0;
  #scheduled = false;
  #pendingLookedEmpty = false;
  #completed = 0;
  #sent = 0;
  #resolve: (stats: BareLoopStats) => void = () => undefined;
  #reject: (error: Error) => void = () => undefined;
  #failed = false;

  constructor(socket: RespSocket, calls: WorkerCalls, n: number, concurrency: number) {
    this.#socket = socket;
    this.#calls = calls;
    this.#n = n;
    this.#concurrency = concurrency;
    this.#maxBatch = Math.ceil(concurrency / 2);
  }

  run(): Promise<BareLoopStats> {
    return new Promise<BareLoopStats>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
      void this.#firstClaim().catch((error: unknown) => this.#fail(error));
    });
  }

  /** The claim loop's first claim (scripts/claim.lua): every slot is free. */
  async #firstClaim(): Promise<void> {
    const wanted = Math.min(this.#concurrency, MAX_CLAIM_BATCH);
    this.#reserved += wanted;
    this.#sent += 1;
    const reply = (await this.#socket.send(this.#calls.claim(wanted))) as RespValue[];
    this.#reserved -= wanted;
    this.#take(reply, 2, wanted);
    this.#checkDone();
  }

  /** Runs the jobs a claim reply holds from `at` (out of `wanted` asked for) and queues their completions. */
  #take(reply: RespValue[], at: number, wanted: number): void {
    let got = 0;
    for (const job of claimedJobs(reply, at)) {
      // The handler's run: the worker parses the payload for it; the no-op handler returns null.
      JSON.parse(job.payload);
      this.#waiting.push(job.id, job.token, 'null');
      got += 1;
    }
    this.#holding += got;
    this.#pendingLookedEmpty = got < wanted;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || this.#waiting.length === 0 || this.#inFlight >= MAX_IN_FLIGHT || this.#failed) return;
    this.#scheduled = true;
    if (this.#inFlight === 0) queueMicrotask(this.#flush);
    else setImmediate(this.#flush);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    if (this.#waiting.length === 0 || this.#inFlight >= MAX_IN_FLIGHT || this.#failed) return;
    const batch = this.#waiting.splice(0, 3 * this.#maxBatch);
    this.#inFlight += 1;
    void this.#call(batch).catch((error: unknown) => this.#fail(error));
    this.#schedule();
  };

  /** One completion batch and the claim sent with it. */
  async #call(batch: string[]): Promise<void> {
    const completing = batch.length / 3;
    // As the worker's batchClaimsOf(lane).reserve: the completing jobs' slots pass to the jobs
    // claimed, and the free slots are claimed too.
    const free = this.#concurrency - this.#holding - this.#reserved;
    const room = this.#pendingLookedEmpty ? 0 : completing + Math.min(0, free);
    const extra = room > 0 ? Math.max(0, free) : 0;
    const wanted = room > 0 ? room + extra : 0;
    this.#reserved += extra;
    this.#sent += 1;
    const reply = (await this.#socket.send(wanted > 0 ? this.#calls.completeAndClaim(wanted, batch) : this.#calls.complete(batch))) as RespValue[];
    this.#inFlight -= 1;
    this.#reserved -= extra;
    this.#holding -= completing;
    const codesAt = wanted > 0 ? 3 : 0;
    if (wanted > 0 && reply[2] !== completing) throw new Error(`complete_and_claim reported ${String(reply[2])} completions, ${completing} were sent`);
    for (let i = 0; i < completing; i += 1) {
      const code = reply[codesAt + i];
      if (code !== CLAIM_DONE) throw new Error(`job ${batch[3 * i]}: completion answered ${JSON.stringify(code)}, not CLAIM_DONE (${CLAIM_DONE})`);
    }
    this.#completed += completing;
    if (wanted > 0) this.#take(reply, 3 + completing, wanted);
    else this.#schedule();
    this.#checkDone();
  }

  /** Resolves once every job is completed; fails when nothing is left to send or to wait for before that. */
  #checkDone(): void {
    if (this.#failed) return;
    if (this.#completed >= this.#n) {
      if (this.#completed > this.#n) return this.#fail(new Error(`${this.#completed} jobs completed, ${this.#n} were enqueued`));
      this.#resolve({ completed: this.#completed, calls: this.#sent });
      return;
    }
    if (this.#inFlight === 0 && this.#waiting.length === 0 && !this.#scheduled) {
      this.#fail(new Error(`the queue ran dry after ${this.#completed} of ${this.#n} completions`));
    }
  }

  #fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#reject(error instanceof Error ? error : new Error(String(error)));
  }
}
