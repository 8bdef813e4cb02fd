import type { ClaimOutlook } from '../claim-outlook.ts';
import { readClaimedJobs } from '../claimed-job.ts';
import { assertOptionKeys } from '../option-keys.ts';
import { LostClaimError, type JobsError, type NotReplicatedError } from '../errors.ts';
import { completeScript, type CompleteKeys } from '../generated/complete.ts';
import { completeAndClaimScript, type CompleteAndClaimKeys } from '../generated/complete-and-claim.ts';
import { CLAIM_CANCELLED, CLAIM_DONE } from '../generated/constants.ts';
import type { ClaimedJob } from '../job-record.ts';
import { encodeJson } from '../json.ts';
import { failedHistoryCap } from '../queue-options.ts';
import { claimTokenBase } from '../random-hex.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';
import { assertReplicated } from './replication.ts';

/**
 * What {@link Queue.completeSettled} did with one job: completed; `cancelled` while it ran (the
 * claim was voided by `cancel`); `lost` (reclaimed or finished otherwise); or `refused` (its
 * result cannot be stored).
 */
export type CompleteOutcome = { readonly status: 'completed' } | { readonly status: 'cancelled' } | { readonly status: 'lost' } | { readonly status: 'refused'; readonly error: JobsError };

const COMPLETED: CompleteOutcome = { status: 'completed' };
const CANCELLED_WHILE_RUNNING: CompleteOutcome = { status: 'cancelled' };
const LOST: CompleteOutcome = { status: 'lost' };

/** The outcome a completion script's per-job code stands for. */
function outcomeOf(code: number): CompleteOutcome {
  return code === CLAIM_DONE ? COMPLETED : code === CLAIM_CANCELLED ? CANCELLED_WHILE_RUNNING : LOST;
}

/** What {@link Queue.completeManyAndClaim} did. */
export interface CompleteAndClaimResult {
  /** Per item, as {@link Queue.completeSettled} reports it. */
  outcomes: CompleteOutcome[];
  /** The jobs claimed: the caller must run them (or release them). */
  next: ClaimedJob[];
  /** Durable mode only: set when fewer replicas than asked confirmed the call in time. */
  notReplicated?: NotReplicatedError;
}

/** A job to complete with its result encoded, and its index in the caller's list. */
interface Encoded {
  readonly job: ClaimedJob;
  readonly json: string;
  readonly index: number;
}

/** The `completions` argument: id, token and result JSON per job. */
function completions(items: readonly Encoded[]): string[] {
  const args: string[] = [];
  for (const { job, json } of items) args.push(job.id, job.token, json);
  return args;
}

/**
 * The completion verbs of one queue: complete alone (scripts/complete.lua), or complete and
 * claim the next jobs in the same call (scripts/complete-and-claim.lua).
 */
export class Completer<P> {
  readonly #ctx: QueueContext<P>;
  readonly #completeKeys: CompleteKeys;
  readonly #completeAndClaimKeys: CompleteAndClaimKeys;
  readonly #outlook: ClaimOutlook;

  constructor(ctx: QueueContext<P>, outlook: ClaimOutlook) {
    this.#ctx = ctx;
    this.#outlook = outlook;
    const k = ctx.keys;
    this.#completeKeys = { processing: k.processing, completed: k.completed, leases: k.leases, stats: k.stats, pending: k.pending, delayed: k.delayed, log: k.log };
    this.#completeAndClaimKeys = { pending: k.pending, processing: k.processing, leases: k.leases, stats: k.stats, delayed: k.delayed, completed: k.completed, failed: k.failed, admission: k.admission, log: k.log };
  }

  #encodeResult(result: unknown, field: string): string {
    return encodeJson(result === undefined ? null : result, field, this.#ctx.options.maxResultBytes);
  }

  /** Runs the completion script on `items`: per item, its code (CLAIM_DONE when completed); and the replicas that confirmed it (durable mode). */
  async #runComplete(items: readonly Encoded[], coalesce: boolean): Promise<{ codes: number[]; replicas: number | undefined }> {
    const o = this.#ctx.options;
    const argv = completeScript.argv(this.#completeKeys, {
      jobPrefix: this.#ctx.keys.jobPrefix,
      ttlSeconds: o.completedTtlSeconds,
      historyCap: o.completedHistory,
      channel: this.#ctx.channel,
      onlyHeard: this.#ctx.onlyHeard,
      wakeChannel: this.#ctx.keys.wake,
      prefix: this.#ctx.keys.prefix,
      logMaxLen: this.#ctx.logMaxLen,
      worker: this.#ctx.workerId,
      completions: completions(items),
    });
    const { reply, replicas } = await this.#ctx.scripts.runAcknowledged(completeScript, argv, coalesce);
    return { codes: reply.map(Number), replicas };
  }

  /** Per item, its completion script's code. */
  async #completeEncoded(items: readonly Encoded[]): Promise<number[]> {
    if (items.length === 0) return [];
    const { codes, replicas } = await this.#runComplete(items, true);
    assertReplicated(this.#ctx, items.length === 1 ? `the completion of job ${items[0]?.job.id}` : `${items.length} completions`, replicas);
    return codes;
  }

  /** See {@link Queue.complete}. */
  async complete(job: ClaimedJob, result: unknown): Promise<void> {
    const [ok] = await this.completeMany([{ job, result }]);
    if (!ok) throw new LostClaimError(job.id, 'complete');
  }

  /** See {@link Queue.completeMany}. */
  async completeMany(items: readonly { job: ClaimedJob; result: unknown }[]): Promise<boolean[]> {
    const encoded = items.map(({ job, result }, index) => ({ job, json: this.#encodeResult(result, items.length === 1 ? 'result' : `items[${index}].result`), index }));
    return (await this.#completeEncoded(encoded)).map((code) => code === CLAIM_DONE);
  }

  /** Encodes each result on its own: one that cannot be stored refuses that job only. */
  #encodeSettled(items: readonly { job: ClaimedJob; result: unknown }[], outcomes: CompleteOutcome[]): Encoded[] {
    const accepted: Encoded[] = [];
    items.forEach(({ job, result }, index) => {
      try {
        accepted.push({ job, json: this.#encodeResult(result, 'result'), index });
      } catch (error) {
        outcomes[index] = { status: 'refused', error: error as JobsError };
      }
    });
    return accepted;
  }

  /** See {@link Queue.completeSettled}. */
  async completeSettled(items: readonly { job: ClaimedJob; result: unknown }[]): Promise<CompleteOutcome[]> {
    const outcomes: CompleteOutcome[] = new Array(items.length);
    const accepted = this.#encodeSettled(items, outcomes);
    const codes = await this.#completeEncoded(accepted);
    accepted.forEach(({ index }, i) => {
      outcomes[index] = outcomeOf(codes[i] as number);
    });
    return outcomes;
  }

  /** See {@link Queue.completeManyAndClaim}. */
  async completeManyAndClaim(items: readonly { job: ClaimedJob; result: unknown }[], options: { max?: number } = {}): Promise<CompleteAndClaimResult> {
    assertOptionKeys<{ max?: number }>('options', options, { max: true });
    const max = assertWholeNumber('max', options.max ?? 1, 0, 1_000);
    const outcomes: CompleteOutcome[] = new Array(items.length);
    return this.#completeEncodedAndClaim(this.#encodeSettled(items, outcomes), outcomes, max);
  }

  /** See {@link Queue.completeAndClaim}. */
  async completeAndClaim(job: ClaimedJob, result: unknown, options: { max?: number } = {}): Promise<{ completed: boolean; next: ClaimedJob[] }> {
    assertOptionKeys<{ max?: number }>('options', options, { max: true });
    const max = assertWholeNumber('max', options.max ?? 1, 1, 1_000);
    // A result that cannot be stored throws here, as complete() does, and nothing is claimed.
    const json = this.#encodeResult(result, 'result');
    const { outcomes, next } = await this.#completeEncodedAndClaim([{ job, json, index: 0 }], new Array<CompleteOutcome>(1), max);
    return { completed: outcomes[0]?.status === 'completed', next };
  }

  /** Completes results already encoded and claims up to `max`; fills in `outcomes` at each index. */
  async #completeEncodedAndClaim(accepted: readonly Encoded[], outcomes: CompleteOutcome[], max: number): Promise<CompleteAndClaimResult> {
    if (accepted.length === 0 && max === 0) return { outcomes, next: [] };
    let codes: number[];
    let next: ClaimedJob[] = [];
    let replicas: number | undefined;
    if (max === 0) {
      // Nothing to claim (a worker at low load, mostly): the completion script alone, which is
      // complete-and-claim without its claim, and cheaper in Redis. A lone completion leaves at
      // once: its round trip is the job's latency. Busier calls still share the tick's write.
      ({ codes, replicas } = await this.#runComplete(accepted, accepted.length !== 1));
    } else {
      const ctx = this.#ctx;
      const o = ctx.options;
      const argv = completeAndClaimScript.argv(this.#completeAndClaimKeys, {
        jobPrefix: ctx.keys.jobPrefix,
        visibilityMs: o.visibilityMs,
        maxAttempts: o.maxAttempts,
        max,
        tokenBase: claimTokenBase(),
        ttlSeconds: o.completedTtlSeconds,
        historyCap: o.completedHistory,
        channel: ctx.channel,
        onlyHeard: ctx.onlyHeard,
        failedTtlSeconds: o.failedTtlSeconds,
        failedHistoryCap: failedHistoryCap(o),
        prefix: ctx.keys.prefix,
        wakeChannel: ctx.keys.wake,
        logMaxLen: ctx.logMaxLen,
        worker: ctx.workerId,
        traced: ctx.traced,
        completions: completions(accepted),
      });
      const sent = await ctx.scripts.runAcknowledged(completeAndClaimScript, argv);
      const reply = sent.reply;
      codes = accepted.map((_, i) => Number(reply[3 + i]));
      next = readClaimedJobs(reply, 3 + Number(reply[2]), Number(reply[0]), ctx.traced);
      this.#outlook.note(Number(reply[1]), Number(reply[0]), next.length < max);
      replicas = sent.replicas;
    }
    accepted.forEach(({ index }, i) => {
      outcomes[index] = outcomeOf(codes[i] as number);
    });
    const result: CompleteAndClaimResult = { outcomes, next };
    // Never thrown here: the jobs just claimed must reach the caller.
    try {
      assertReplicated(this.#ctx, `${accepted.length} completion(s)`, replicas);
    } catch (error) {
      result.notReplicated = error as NotReplicatedError;
    }
    return result;
  }
}
