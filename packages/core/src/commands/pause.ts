import { InvalidArgumentError } from '../errors.ts';
import { assertOptionKeys, type OptionKeys } from '../option-keys.ts';
import { pauseScript, type PauseKeys } from '../generated/pause.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

/** What {@link Queue.pause} takes. */
export interface PauseOptions {
  /** A kind of the queue: only its jobs stop. Default: the whole queue. */
  readonly kind?: string;
  /** Who pauses: a short label (1 to 64 printable characters, spaces allowed), reported by `why()` as `pausedBy`. */
  readonly by?: string;
}

/** The most characters a pause's `by` label holds. */
const PAUSED_BY_MAX = 64;

/** Throws `JOBS_INVALID_ARGUMENT` (field `by`) unless `by` is a pause's label. */
function assertPausedBy(by: unknown): asserts by is string {
  if (typeof by !== 'string' || by.length === 0 || by.length > PAUSED_BY_MAX || /[^\x20-\x7e]/.test(by)) {
    throw new InvalidArgumentError('by', `expected 1 to ${PAUSED_BY_MAX} printable ASCII characters, got ${typeof by === 'string' ? JSON.stringify(by.slice(0, 80)) : typeof by}`);
  }
}

function pauseKeys<P>(ctx: QueueContext<P>): PauseKeys {
  return { admission: ctx.keys.admission, resume: ctx.keys.resume, pending: ctx.keys.pending };
}

/** The kind `options` names ('' for the whole queue); throws on one the queue does not carry. */
function pauseKind<P>(ctx: QueueContext<P>, options: { kind?: string }, keys: OptionKeys<{ kind?: string; batch?: number }> | OptionKeys<PauseOptions>): string {
  assertOptionKeys<object>('options', options, keys as OptionKeys<object>);
  if (options.kind === undefined) return '';
  if (!ctx.kinds.has(options.kind)) throw new InvalidArgumentError('kind', `${JSON.stringify(options.kind)} is not a kind of this queue (${ctx.kinds.names.join(', ')})`);
  return options.kind;
}

/** See {@link Queue.pause}: every partition's. */
export async function pause<P>(partitions: readonly QueueContext<P>[], options: PauseOptions = {}): Promise<void> {
  if (options.by !== undefined) assertPausedBy(options.by);
  if (partitions.length === 1) return pauseOn(partitions[0] as QueueContext<P>, options);
  await Promise.all(partitions.map((ctx) => pauseOn(ctx, options)));
}

async function pauseOn<P>(ctx: QueueContext<P>, options: PauseOptions): Promise<void> {
  const kind = pauseKind(ctx, options, { kind: true, by: true });
  await ctx.scripts.run(pauseScript, pauseScript.argv(pauseKeys(ctx), { jobPrefix: ctx.keys.jobPrefix, action: 'pause', kind, batch: 0, prefix: ctx.keys.prefix, by: options.by ?? '' }));
}

/** See {@link Queue.resume}: every partition's. */
export async function resume<P>(partitions: readonly QueueContext<P>[], options: { kind?: string; batch?: number } = {}): Promise<void> {
  if (partitions.length === 1) return resumeOn(partitions[0] as QueueContext<P>, options);
  await Promise.all(partitions.map((ctx) => resumeOn(ctx, options)));
}

async function resumeOn<P>(ctx: QueueContext<P>, options: { kind?: string; batch?: number }): Promise<void> {
  const kind = pauseKind(ctx, options, { kind: true, batch: true });
  const batch = assertWholeNumber('batch', options.batch ?? 1_000, 1, 100_000);
  const keys = pauseKeys(ctx);
  const run = (action: 'resume' | 'unpark') => ctx.scripts.run(pauseScript, pauseScript.argv(keys, { jobPrefix: ctx.keys.jobPrefix, action, kind, batch, prefix: ctx.keys.prefix, by: '' }));
  // `resume`, then for a kind `unpark` until its parked jobs are all back on their lists (or
  // the kind was paused again meanwhile).
  let left = Number(await run('resume'));
  while (left > 0) left = Number(await run('unpark'));
}

/** What the admission hash (`[field, value, ...]`) says of pauses. */
export function readPauseState(hash: readonly string[]): { paused: boolean; kinds: string[] } {
  let paused = false;
  const kinds: string[] = [];
  for (let i = 0; i < hash.length; i += 2) {
    const field = hash[i] as string;
    if (field === 'paused') paused = true;
    else if (field.startsWith('paused_kind:')) kinds.push(field.slice('paused_kind:'.length));
  }
  return { paused, kinds: kinds.sort() };
}
