import { InvalidArgumentError } from '../errors.ts';
import { assertOptionKeys, type OptionKeys } from '../option-keys.ts';
import { pauseScript, type PauseKeys } from '../generated/pause.ts';
import { assertWholeNumber } from '../whole-number.ts';
import type { QueueContext } from './queue-context.ts';

function pauseKeys<P>(ctx: QueueContext<P>): PauseKeys {
  return { admission: ctx.keys.admission, resume: ctx.keys.resume, pending: ctx.keys.pending };
}

/** The kind `options` names ('' for the whole queue); throws on one the queue does not carry. */
function pauseKind<P>(ctx: QueueContext<P>, options: { kind?: string }, keys: OptionKeys<{ kind?: string; batch?: number }> | OptionKeys<{ kind?: string }>): string {
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
  const kind = pauseKind(ctx, options, { kind: true });
  await ctx.scripts.run(pauseScript, pauseScript.argv(pauseKeys(ctx), { jobPrefix: ctx.keys.jobPrefix, action: 'pause', kind, batch: 0, prefix: ctx.keys.prefix }));
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
  const run = (action: 'resume' | 'unpark') => ctx.scripts.run(pauseScript, pauseScript.argv(keys, { jobPrefix: ctx.keys.jobPrefix, action, kind, batch, prefix: ctx.keys.prefix }));
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
