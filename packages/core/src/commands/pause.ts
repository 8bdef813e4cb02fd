import { InvalidArgumentError } from '../errors.ts';
import { assertOptionKeys, type OptionKeys } from '../option-keys.ts';
import { resumeInBatches } from '../flow-control.ts';
import { CLAIM_LIMITED_MAX, CLAIM_PAUSED } from '../generated/constants.ts';
import { pauseScript, type PauseKeys } from '../generated/pause.ts';
import type { QueueKeys } from '../keys.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** What the last claim said: ms until the next job was due (-1: none), when that was (local clock), and whether it came back short. */
export interface DueHint {
  readonly untilDueMs: number;
  readonly atMs: number;
  /** Fewer jobs than asked for: nothing claimable was left then, so a push is what brings work. */
  readonly short: boolean;
}

/**
 * What the last claim of a queue said (a claim, or the claim half of a complete-and-claim): when
 * the next delayed job (or job held by a limit) is due, the queue's pause, and its rate limit.
 * A paused queue's claims
 * take nothing, and its pending list may hold jobs that would end every wait on it at once: its
 * waits block on the resume list instead, which a resume pushes onto. A queue over its rate
 * limit (see scripts/lib/limits.lua) waits on the resume list too, until the limit lets claims
 * start again: no push wakes it then, so its waits end by then.
 */
export class PauseWatch {
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

function pauseKeys<P>(ctx: QueueContext<P>): PauseKeys {
  return { flow: ctx.keys.flow, resume: ctx.keys.resume, pending: ctx.keys.pending };
}

/** The kind `options` names ('' for the whole queue); throws on one the queue does not carry. */
function flowKind<P>(ctx: QueueContext<P>, options: { kind?: string }, keys: OptionKeys<{ kind?: string; batch?: number }> | OptionKeys<{ kind?: string }>): string {
  assertOptionKeys('options', options, keys);
  if (options.kind === undefined) return '';
  if (!ctx.kinds.has(options.kind)) throw new InvalidArgumentError('kind', `${JSON.stringify(options.kind)} is not a kind of this queue (${ctx.kinds.names.join(', ')})`);
  return options.kind;
}

/** See {@link Queue.pause}: every partition's. */
export async function pause<P>(partitions: readonly QueueContext<P>[], options: { kind?: string } = {}): Promise<void> {
  if (partitions.length === 1) return pauseOn(partitions[0] as QueueContext<P>, options);
  await Promise.all(partitions.map((ctx) => pauseOn(ctx, options)));
}

async function pauseOn<P>(ctx: QueueContext<P>, options: { kind?: string }): Promise<void> {
  const kind = flowKind(ctx, options, { kind: true });
  await ctx.scripts.run(pauseScript, pauseScript.argv(pauseKeys(ctx), { jobPrefix: ctx.keys.jobPrefix, action: 'pause', kind, batch: 0, prefix: ctx.keys.prefix }));
}

/** See {@link Queue.resume}: every partition's. */
export async function resume<P>(partitions: readonly QueueContext<P>[], options: { kind?: string; batch?: number } = {}): Promise<void> {
  if (partitions.length === 1) return resumeOn(partitions[0] as QueueContext<P>, options);
  await Promise.all(partitions.map((ctx) => resumeOn(ctx, options)));
}

async function resumeOn<P>(ctx: QueueContext<P>, options: { kind?: string; batch?: number }): Promise<void> {
  const kind = flowKind(ctx, options, { kind: true, batch: true });
  const batch = assertWholeNumber('batch', options.batch ?? 1_000, 1, 100_000);
  const keys = pauseKeys(ctx);
  await resumeInBatches((action) => ctx.scripts.run(pauseScript, pauseScript.argv(keys, { jobPrefix: ctx.keys.jobPrefix, action, kind, batch, prefix: ctx.keys.prefix })));
}
