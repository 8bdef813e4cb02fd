import type { ClaimOutlook } from '../claim-outlook.ts';
import { readClaimedJobs } from '../claimed-job.ts';
import { assertOptionKeys } from '../option-keys.ts';
import { claimScript, type ClaimArgs, type ClaimKeys } from '../generated/claim.ts';
import type { ClaimedJob } from '../job-record.ts';
import { failedHistoryCap } from '../queue-options.ts';
import { claimTokenBase } from '../random-hex.ts';
import type { WorkWaiter } from '../wait-for-work.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** Options of {@link Queue.claim}. */
export interface ClaimOptions {
  /** Most jobs to claim in this call (one round trip). Default 1, at most 1000. */
  max?: number;
  /** Wait up to this long for work when none is pending. Default 0: do not wait. */
  blockMs?: number;
  /** Stops a wait early. */
  signal?: AbortSignal;
}

/** The claim script's keys for `ctx`'s queue: the same on every call. */
export function claimKeys<P>(ctx: QueueContext<P>): ClaimKeys {
  const keys = ctx.keys;
  return { pending: keys.pending, processing: keys.processing, leases: keys.leases, stats: keys.stats, delayed: keys.delayed, failed: keys.failed, admission: keys.admission, log: keys.log };
}

/** The claim script's arguments: up to `max` jobs, a fresh token base. */
export function claimArgs<P>(ctx: QueueContext<P>, max: number): ClaimArgs {
  const o = ctx.options;
  return {
    jobPrefix: ctx.keys.jobPrefix,
    visibilityMs: o.visibilityMs,
    maxAttempts: o.maxAttempts,
    max,
    tokenBase: claimTokenBase(),
    failedTtlSeconds: o.failedTtlSeconds,
    failedHistoryCap: failedHistoryCap(o),
    channel: ctx.channel,
    prefix: ctx.keys.prefix,
    logMaxLen: ctx.logMaxLen,
    worker: ctx.workerId,
    traced: ctx.traced,
  };
}

/**
 * Claims jobs for one queue: one script call when work is pending, else a wait on Redis (no
 * polling) that runs the claim the moment a push ends it. Remembers when the next delayed job
 * is due, so a wait ends in time for it, and whether the queue is paused or over its rate limit
 * (see {@link ClaimOutlook}, which a complete-and-claim's claims inform too).
 */
export class Claimer<P> {
  readonly #ctx: QueueContext<P>;
  readonly #waiter: WorkWaiter;
  readonly #keys: ClaimKeys;
  readonly #isClosed: () => boolean;
  readonly #outlook: ClaimOutlook;

  constructor(ctx: QueueContext<P>, waiter: WorkWaiter, isClosed: () => boolean, outlook: ClaimOutlook) {
    this.#ctx = ctx;
    this.#outlook = outlook;
    this.#waiter = waiter;
    this.#keys = claimKeys(ctx);
    this.#isClosed = isClosed;
  }

  #argv(max: number): string[] {
    return claimScript.argv(this.#keys, claimArgs(this.#ctx, max));
  }

  /** See {@link Queue.claim}. */
  async claim(options: ClaimOptions = {}): Promise<ClaimedJob[]> {
    assertOptionKeys<ClaimOptions>('options', options, { max: true, blockMs: true, signal: true });
    const max = assertWholeNumber('max', options.max ?? 1, 1, 1_000);
    const blockMs = assertWholeNumber('blockMs', options.blockMs ?? 0, 0, 3_600_000);
    const scripts = this.#ctx.scripts;
    const deadline = Date.now() + blockMs;
    let nextDueMs = -1;
    let nowMs = 0;
    for (;;) {
      const remaining = deadline - Date.now();
      // How long until the next delayed job is due: from this call's last claim, else from the
      // previous call's when that one came back short (then the wait starts at once: a push
      // wakes it, and the claim behind it runs either way); else claim once first. A claim that
      // took all it asked for may have left jobs where the wait does not look (the lists of
      // other priorities, a group's list): only pending's pushes end a wait.
      const hint = this.#outlook.dueHint;
      let untilDue: number | undefined;
      if (nowMs !== 0) untilDue = nextDueMs >= 0 ? Math.max(1, nextDueMs - nowMs) : remaining;
      else if (hint?.short) untilDue = hint.untilDueMs >= 0 ? Math.max(1, hint.untilDueMs - (Date.now() - hint.atMs)) : remaining;
      let reply;
      if (untilDue === undefined || remaining <= 0) {
        reply = await scripts.run(claimScript, this.#argv(max));
      } else {
        // Wake for the next delayed job too; a delayed job is not in pending, so no push wakes us.
        // A paused queue waits on its resume list: its pending jobs would end every wait at once.
        await this.#ctx.ready();
        const paused = this.#outlook.paused;
        const claimed = await this.#waiter.waitThenRun(paused ? remaining : this.#outlook.bound(Math.min(remaining, untilDue)), claimScript, this.#argv(max), options.signal, this.#outlook.waitKey);
        if (claimed === null) return [];
        reply = claimed ?? (await scripts.run(claimScript, this.#argv(max)));
      }
      nowMs = Number(reply[0]);
      const jobs = readClaimedJobs(reply, 2, nowMs, this.#ctx.traced);
      nextDueMs = this.#outlook.note(Number(reply[1]), nowMs, jobs.length < max);
      if (jobs.length > 0 || deadline - Date.now() <= 0 || this.#isClosed() || options.signal?.aborted) return jobs;
    }
  }
}
