import type { ChildResult, ClaimedJob, CompleteAndClaimResult, FailOutcome, ReclaimResult } from '@jobs/core';
import { defineKinds, type PayloadTypesOf } from '../../src/index.ts';
import type { LaneQueue, QueueGroup } from '../../src/lane-queue.ts';
import type { FakeClock } from './fake-clock.ts';

/** One kind, `task`, whose payload says which job it is. */
export const taskKinds = defineKinds({
  task: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } },
});
export type TaskPayloads = PayloadTypesOf<typeof taskKinds>;

let tokens = 0;

/** A claimed `task` job with id `id`, as a claim hands it over. */
export function taskJob(id: string, nowMs: number, visibilityMs = 30_000, traceparent?: string): ClaimedJob {
  const raw = JSON.stringify({ kind: 'task', n: Number(id.replace(/\D/g, '')) || 0 });
  tokens += 1;
  return {
    id,
    token: `t${tokens}`,
    status: 'processing',
    kind: 'task',
    payload: JSON.parse(raw),
    rawPayload: raw,
    attempts: 1,
    maxAttempts: undefined,
    visibilityMs,
    // Every fake job was enqueued a second before its claim.
    enqueuedAtMs: nowMs - 1_000,
    claimedAtMs: nowMs,
    leaseRenewedAtMs: undefined,
    priority: 0,
    expiresAtMs: undefined,
    progress: undefined,
    checkpoint: undefined,
    traceparent,
    leaseExpiresAtMs: nowMs + visibilityMs,
    runAtMs: undefined,
    completedAtMs: undefined,
    failedAtMs: undefined,
    cancelledAtMs: undefined,
    reclaimedAtMs: undefined,
    result: undefined,
    lastError: undefined,
    lastErrorAtMs: undefined,
    error: undefined,
    fields: { id, kind: 'task', status: 'processing', ...(traceparent !== undefined && { traceparent }) },
  };
}

/** A reply a test holds back and lets go when it likes, as a slow network would. */
interface Held {
  readonly what: string;
  readonly answer: () => void;
}

/** One call the worker made, as the fake saw it. */
export type Call =
  | { readonly verb: 'claim'; readonly max: number; readonly blockMs: number; readonly completionsInFlight: number }
  | { readonly verb: 'complete'; readonly ids: readonly string[]; readonly max: number }
  | { readonly verb: 'fail'; readonly id: string; readonly permanent: boolean }
  | { readonly verb: 'release'; readonly ids: readonly string[] }
  | { readonly verb: 'rateLimited'; readonly id: string; readonly retryAfterMs: number }
  | { readonly verb: 'snooze'; readonly id: string; readonly delayMs: number };

/**
 * A queue in memory, driven by a {@link FakeClock}: pending ids are claimed in order, a blocking
 * claim waits for a {@link push} or its timeout on the fake clock, and every reply comes in a
 * later turn of the event loop, as a reply over a socket would. A test can make claims fail,
 * hold replies back, and read every call made.
 */
export class FakeQueue implements LaneQueue {
  readonly name: string;
  readonly options = { visibilityMs: 30_000, maxAttempts: 3 };
  readonly #clock: FakeClock;
  readonly #pending: string[] = [];
  #wakers: (() => void)[] = [];
  /** Every call, in the order sent. */
  readonly calls: Call[] = [];
  /** Ids completed, in order. */
  readonly completed: string[] = [];
  /** Claims still to fail, each with this error. */
  failClaims: Error[] = [];
  /** While true, completion replies wait in {@link held} (the script has run: its claims are taken). */
  holdCompletions = false;
  /** While true, release replies wait in {@link held}. */
  holdReleases = false;
  readonly held: Held[] = [];
  /** Stored on every job claimed from now on, as the producer's trace context. */
  traceparent: string | undefined;
  /** Completion calls sent and not answered yet. */
  completionsInFlight = 0;
  /** How long a completion's reply takes on the fake clock; 0: the next turn of the event loop. */
  completionRoundTripMs = 0;

  constructor(clock: FakeClock, name = 'fake') {
    this.#clock = clock;
    this.name = name;
  }

  /** Adds jobs to pending (ids `prefix0`, `prefix1`, ...) and wakes blocked claims. */
  push(count: number, prefix = `${this.name}-`): string[] {
    const ids = Array.from({ length: count }, (_, index) => `${prefix}${this.#pending.length + this.claimedCount + index}`);
    this.#pending.push(...ids);
    const wakers = this.#wakers;
    this.#wakers = [];
    for (const wake of wakers) wake();
    return ids;
  }

  /** Jobs claimed so far. */
  claimedCount = 0;

  get pendingCount(): number {
    return this.#pending.length;
  }

  #take(max: number): ClaimedJob[] {
    const ids = this.#pending.splice(0, max);
    this.claimedCount += ids.length;
    return ids.map((id) => taskJob(id, this.#clock.now(), this.options.visibilityMs, this.traceparent));
  }

  /** Resolves `value` in a later turn of the event loop. */
  #reply<T>(value: T): Promise<T> {
    return new Promise((resolve) => setImmediate(() => resolve(value)));
  }

  /** Waits for a push, `ms` on the fake clock, or `signal`. */
  #waitForPush(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.#clock.clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = this.#clock.setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      this.#wakers.push(done);
    });
  }

  async claim(options: { max: number; blockMs: number; signal: AbortSignal }): Promise<ClaimedJob[]> {
    this.calls.push({ verb: 'claim', max: options.max, blockMs: options.blockMs, completionsInFlight: this.completionsInFlight });
    const failure = this.failClaims.shift();
    if (failure) {
      await this.#reply(undefined);
      throw failure;
    }
    if (this.#pending.length === 0 && options.blockMs > 0 && !options.signal.aborted) await this.#waitForPush(options.blockMs, options.signal);
    return this.#reply(this.#take(options.max));
  }

  waitForWork(timeoutMs: number): Promise<void> {
    if (this.#pending.length > 0) return this.#reply(undefined);
    return this.#waitForPush(timeoutMs);
  }

  completeManyAndClaim(items: readonly { job: ClaimedJob; result: unknown }[], options: { max: number }): Promise<CompleteAndClaimResult> {
    this.calls.push({ verb: 'complete', ids: items.map((item) => item.job.id), max: options.max });
    this.completionsInFlight += 1;
    for (const item of items) this.completed.push(item.job.id);
    const reply: CompleteAndClaimResult = { outcomes: items.map(() => ({ status: 'completed' as const })), next: this.#take(options.max) };
    const answered = (): CompleteAndClaimResult => {
      this.completionsInFlight -= 1;
      return reply;
    };
    if (this.completionRoundTripMs > 0) return new Promise((resolve) => this.#clock.setTimeout(() => resolve(answered()), this.completionRoundTripMs));
    if (!this.holdCompletions) return this.#reply(undefined).then(answered);
    return new Promise((resolve) => this.held.push({ what: `complete ${reply.next.length > 0 ? 'and claim ' : ''}${items.map((item) => item.job.id).join(',')}`, answer: () => resolve(answered()) }));
  }

  fail(job: ClaimedJob, _error: unknown, options: { permanent: boolean }): Promise<FailOutcome> {
    this.calls.push({ verb: 'fail', id: job.id, permanent: options.permanent });
    return this.#reply(options.permanent ? 'failed' : 'retried');
  }

  rateLimited(job: ClaimedJob, retryAfterMs: number): Promise<number> {
    this.calls.push({ verb: 'rateLimited', id: job.id, retryAfterMs });
    return this.#reply(this.#clock.now() + retryAfterMs);
  }

  /** Ids whose lease renewals come back empty from now on, as for a job reclaimed meanwhile. */
  readonly lostLeases = new Set<string>();
  /** Ids whose lease renewals come back `'cancelled'` from now on, as for a job cancelled while it runs. */
  readonly cancelledLeases = new Set<string>();

  renewLeases(jobs: readonly ClaimedJob[], leaseMs: number): Promise<(number | 'cancelled' | null)[]> {
    return this.#reply(jobs.map((job) => (this.cancelledLeases.has(job.id) ? 'cancelled' : this.lostLeases.has(job.id) ? null : this.#clock.now() + leaseMs)));
  }

  extendLease(_job: ClaimedJob, leaseMs: number): Promise<number> {
    return this.#reply(this.#clock.now() + leaseMs);
  }

  progress(): Promise<void> {
    return this.#reply(undefined);
  }

  snooze(job: ClaimedJob, delayMs: number): Promise<void> {
    this.calls.push({ verb: 'snooze', id: job.id, delayMs });
    return this.#reply(undefined);
  }

  handOff(): Promise<{ outcome: 'delayed'; delayMs: number; liveWorkers: number }> {
    return this.#reply({ outcome: 'delayed' as const, delayMs: 1_000, liveWorkers: 0 });
  }

  checkpoint(): Promise<void> {
    return this.#reply(undefined);
  }

  checkpointed(): Promise<unknown> {
    return this.#reply(undefined);
  }

  appendLogs(): Promise<void> {
    return this.#reply(undefined);
  }

  children(): Promise<Record<string, ChildResult>> {
    return Promise.resolve({});
  }

  release(jobs: readonly ClaimedJob[]): Promise<boolean[]> {
    this.calls.push({ verb: 'release', ids: jobs.map((job) => job.id) });
    const reply = jobs.map(() => true);
    if (!this.holdReleases) return this.#reply(reply);
    return new Promise((resolve) => this.held.push({ what: `release ${jobs.map((job) => job.id).join(',')}`, answer: () => resolve(reply) }));
  }

  reclaimStuck(): Promise<ReclaimResult> {
    return this.#reply({ reclaimed: [], deadLettered: [], dropped: [], more: false });
  }

  unparkFreed(): Promise<{ unparked: number; more: boolean }> {
    return this.#reply({ unparked: 0, more: false });
  }

  /** The calls of one verb. */
  callsOf<V extends Call['verb']>(verb: V): Extract<Call, { verb: V }>[] {
    return this.calls.filter((call): call is Extract<Call, { verb: V }> => call.verb === verb);
  }

  /** Ids handed back to pending, in order. */
  get released(): string[] {
    return this.callsOf('release').flatMap((call) => call.ids);
  }
}

/** A queue of `queues.length` partitions (one: a plain queue). */
export function fakeGroup(queues: readonly FakeQueue[]): QueueGroup<TaskPayloads> & { closed: boolean } {
  return {
    kinds: taskKinds,
    partitions: queues,
    closed: false,
    ensureLayout: () => Promise.resolve(),
    close() {
      this.closed = true;
      return Promise.resolve();
    },
  };
}
