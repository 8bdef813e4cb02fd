import { CLAIM_LIMITED_MAX, CLAIM_PAUSED } from './generated/constants.ts';
import type { QueueKeys } from './keys.ts';

/** What the last claim said: ms until the next job was due (-1: none), when that was (local clock), and whether it came back short. */
export interface DueHint {
  readonly untilDueMs: number;
  readonly atMs: number;
  /** Fewer jobs than asked for: nothing claimable was left then, so a push is what brings work. */
  readonly short: boolean;
}

/**
 * What the last claim of a queue said of what comes next (a claim, or the claim half of a
 * complete-and-claim): when the next delayed job (or job held by a limit) is due, whether the
 * queue is paused, and whether it is over its rate limit; from these, which list a wait for work
 * blocks on and for how long. A paused queue's claims take nothing, and its pending list may hold
 * jobs that would end every wait on it at once: its waits block on the resume list instead, which
 * a resume pushes onto. A queue over its rate limit (see scripts/lib/limits.lua) waits on the
 * resume list too, until the limit lets claims start again: no push wakes it then, so its waits
 * end by then.
 */
export class ClaimOutlook {
  readonly #keys: QueueKeys;
  #paused = false;
  /** While over the queue's rate limit: until when (ms, local clock), else undefined. */
  #limitedUntil: number | undefined;
  /** From the last claim: ms until the next job was due (-1: none), when that was (local clock), and whether it came back short. */
  #dueHint: DueHint | undefined;

  constructor(keys: QueueKeys) {
    this.#keys = keys;
  }

  /**
   * Notes the next-due value of a claim reply taken at Redis time `nowMs`; returns it with a
   * pause read as -1 (none due), and a rate limit as the time it lets claims start again.
   * `short`: the claim took fewer jobs than it asked for, so nothing claimable was left.
   */
  note(nextDueMs: number, nowMs: number, short: boolean): number {
    this.#paused = nextDueMs === CLAIM_PAUSED;
    const limited = nextDueMs <= CLAIM_LIMITED_MAX;
    this.#limitedUntil = limited ? Date.now() + Math.max(1, -nextDueMs - nowMs) : undefined;
    const due = this.#paused ? -1 : limited ? -nextDueMs : nextDueMs;
    this.#dueHint = { untilDueMs: due >= 0 ? due - nowMs : -1, atMs: Date.now(), short };
    return due;
  }

  /** What the last claim said of the next due job and of what it left (see {@link DueHint}). */
  get dueHint(): DueHint | undefined {
    return this.#dueHint;
  }

  /** True when the last claim found the queue paused (its waits are bounded by nothing due). */
  get paused(): boolean {
    return this.#paused;
  }

  /** The list a wait for work blocks on: pending, or the resume list of a paused or limited queue. */
  get waitKey(): string {
    return this.#paused || this.#limitedUntil !== undefined ? this.#keys.resume : this.#keys.pending;
  }

  /** `ms`, or less: a wait of a queue over its rate limit ends when the limit lets claims start. */
  bound(ms: number): number {
    return this.#limitedUntil === undefined ? ms : Math.min(ms, Math.max(1, this.#limitedUntil - Date.now()));
  }
}
