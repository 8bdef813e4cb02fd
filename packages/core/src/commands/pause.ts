import { InvalidArgumentError } from '../errors.ts';
import { resumeInBatches } from '../flow-control.ts';
import { CLAIM_PAUSED } from '../generated/constants.ts';
import { pauseScript, type PauseKeys } from '../generated/pause.ts';
import type { QueueKeys } from '../keys.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/**
 * What the last claim of a queue said of its pause. A paused queue's claims take nothing, and
 * its pending list may hold jobs that would end every wait on it at once: its waits block on
 * the resume list instead, which a resume pushes onto.
 */
export class PauseWatch {
  readonly #keys: QueueKeys;
  #paused = false;

  constructor(keys: QueueKeys) {
    this.#keys = keys;
  }

  /** Notes the next-due value of a claim reply; returns it with a pause read as -1 (none due). */
  note(nextDueMs: number): number {
    this.#paused = nextDueMs === CLAIM_PAUSED;
    return this.#paused ? -1 : nextDueMs;
  }

  /** True when the last claim found the queue paused. */
  get paused(): boolean {
    return this.#paused;
  }

  /** The list a wait for work blocks on: pending, or the resume list of a paused queue. */
  get waitKey(): string {
    return this.#paused ? this.#keys.resume : this.#keys.pending;
  }
}

function pauseKeys<P>(ctx: QueueContext<P>): PauseKeys {
  return { flow: ctx.keys.flow, resume: ctx.keys.resume, pending: ctx.keys.pending };
}

/** The kind `options` names ('' for the whole queue); throws on one the queue does not carry. */
function flowKind<P>(ctx: QueueContext<P>, options: { kind?: string }): string {
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'expected an object');
  if (options.kind === undefined) return '';
  if (!ctx.kinds.has(options.kind)) throw new InvalidArgumentError('kind', `${JSON.stringify(options.kind)} is not a kind of this queue (${ctx.kinds.names.join(', ')})`);
  return options.kind;
}

/** See {@link JobQueue.pause}. */
export async function pause<P>(ctx: QueueContext<P>, options: { kind?: string } = {}): Promise<void> {
  const kind = flowKind(ctx, options);
  await ctx.scripts.run(pauseScript, pauseScript.argv(pauseKeys(ctx), { jobPrefix: ctx.keys.jobPrefix, action: 'pause', kind, batch: 0, prefix: ctx.keys.prefix }));
}

/** See {@link JobQueue.resume}. */
export async function resume<P>(ctx: QueueContext<P>, options: { kind?: string; batch?: number } = {}): Promise<void> {
  const kind = flowKind(ctx, options);
  const batch = assertWholeNumber('batch', options.batch ?? 1_000, 1, 100_000);
  const keys = pauseKeys(ctx);
  await resumeInBatches((action) => ctx.scripts.run(pauseScript, pauseScript.argv(keys, { jobPrefix: ctx.keys.jobPrefix, action, kind, batch, prefix: ctx.keys.prefix })));
}
