/**
 * The three script calls a busy @jobs worker sends, laid out as FCALL commands exactly as core's
 * generated wrappers lay them out (packages/core/src/generated/claim.ts, complete.ts and
 * complete-and-claim.ts, from the scripts' headers), for a queue with default options and the
 * bench adapter's completed history. The wrappers are core's own and not exported, so the
 * layout is written here once more; test/floor-calls.test.ts holds it against them.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { queueKeys, type QueueKeys } from '@jobs/core';
import { claimTokenBase, FUNCTION_LIBRARY_NAME } from '@jobs/core/internal';

/** `CLAIM_DONE` of the Lua scripts (packages/core/src/generated/constants.ts): a completion that went through. */
export const CLAIM_DONE = 1;
/** `CLAIM_STRIDE` of the Lua scripts: values per claimed job in a claim reply (untraced). */
export const CLAIM_STRIDE = 10;

/** The policy values a worker's calls carry, as the bench adapter's worker resolves them. */
export interface WorkerPolicy {
  readonly visibilityMs: number;
  readonly maxAttempts: number;
  readonly completedTtlSeconds: number;
  readonly completedHistory: number;
  readonly failedTtlSeconds: number;
  /** -1: no cap (the default `failedHistory: Infinity`). */
  readonly failedHistoryCap: number;
  /** The events channel, `''` when events are off. */
  readonly channel: string;
  /** `'1'`: publish only when someone listens (one server). */
  readonly onlyHeard: '0' | '1';
  /** `'0'`: the event log is off (the default). */
  readonly logMaxLen: string;
  /** The worker's id as the event log would name it. */
  readonly worker: string;
  /** `'0'`: claims return no traceparent (a worker without tracing). */
  readonly traced: '0' | '1';
}

/**
 * Defaults of core's queue options (visibility 30 s, 3 attempts, failed jobs kept, events on,
 * event log off), with the bench adapter's `completedHistory: 1000, completedTtlSeconds: 0`,
 * and a worker id made as a worker makes its own.
 */
export function benchWorkerPolicy(keys: QueueKeys): WorkerPolicy {
  return {
    visibilityMs: 30_000,
    maxAttempts: 3,
    completedTtlSeconds: 0,
    completedHistory: 1_000,
    failedTtlSeconds: 0,
    failedHistoryCap: -1,
    channel: keys.events,
    onlyHeard: '1',
    logMaxLen: '0',
    worker: `${hostname()}:${process.pid}:${randomBytes(2).toString('hex')}`,
    traced: '0',
  };
}

/** Builds one queue's worker calls; each returns a whole command (`FCALL`, function, key count, keys, arguments). */
export class WorkerCalls {
  readonly keys: QueueKeys;
  readonly policy: WorkerPolicy;
  readonly #claimHead: readonly string[];
  readonly #claimTail: readonly string[];
  readonly #completeHead: readonly string[];
  readonly #bothHead: readonly string[];
  readonly #bothMiddle: readonly string[];

  constructor(queue: string, policy?: WorkerPolicy) {
    const k = queueKeys(queue);
    const p = policy ?? benchWorkerPolicy(k);
    this.keys = k;
    this.policy = p;
    const lib = FUNCTION_LIBRARY_NAME;
    this.#claimHead = ['FCALL', `${lib}_claim`, '8', k.pending, k.processing, k.leases, k.stats, k.delayed, k.failed, k.admission, k.log, k.jobPrefix, String(p.visibilityMs), String(p.maxAttempts)];
    this.#claimTail = [String(p.failedTtlSeconds), String(p.failedHistoryCap), p.channel, k.prefix, p.logMaxLen, p.worker, p.traced];
    this.#completeHead = ['FCALL', `${lib}_complete`, '7', k.processing, k.completed, k.leases, k.stats, k.pending, k.delayed, k.log, k.jobPrefix, String(p.completedTtlSeconds), String(p.completedHistory), p.channel, p.onlyHeard, k.wake, k.prefix, p.logMaxLen, p.worker];
    this.#bothHead = ['FCALL', `${lib}_complete_and_claim`, '9', k.pending, k.processing, k.leases, k.stats, k.delayed, k.completed, k.failed, k.admission, k.log, k.jobPrefix, String(p.visibilityMs), String(p.maxAttempts)];
    this.#bothMiddle = [String(p.completedTtlSeconds), String(p.completedHistory), p.channel, p.onlyHeard, String(p.failedTtlSeconds), String(p.failedHistoryCap), k.prefix, k.wake, p.logMaxLen, p.worker, p.traced];
  }

  /** scripts/claim.lua: claim up to `max`. Reply: now, next due, then {@link CLAIM_STRIDE} values per job. */
  claim(max: number, base: string = claimTokenBase()): string[] {
    return [...this.#claimHead, String(max), base, ...this.#claimTail];
  }

  /** scripts/complete.lua: complete `completions` (id, token, result JSON per job). Reply: a code per job. */
  complete(completions: readonly string[]): string[] {
    return [...this.#completeHead, ...completions];
  }

  /**
   * scripts/complete-and-claim.lua: complete `completions` (id, token, result JSON per job) and
   * claim up to `max`. Reply: now, next due, M, M codes, then {@link CLAIM_STRIDE} values per job.
   */
  completeAndClaim(max: number, completions: readonly string[], base: string = claimTokenBase()): string[] {
    return [...this.#bothHead, String(max), base, ...this.#bothMiddle, ...completions];
  }
}
