import { JobsError, JOBS_ERROR_CODES, InvalidArgumentError } from '../errors.ts';
import { BATCH_MISSING, BATCH_OPENED } from '../generated/constants.ts';
import { batchOpenScript } from '../generated/batch-open.ts';
import { batchSealScript } from '../generated/batch-seal.ts';
import type { KindName } from '../kinds.ts';
import { assertOptionKeys, type OptionKeys } from '../option-keys.ts';
import { randomHex } from '../random-hex.ts';
import { withRedisErrors } from '../redis-connection.ts';
import { assertWholeNumber } from '../whole-number.ts';
import { enqueuePrepared, prepareEnqueueMany, type EnqueueRequest, type EnqueueResult, type PreparedEnqueue } from './enqueue.ts';
import type { QueueContext } from './queue-context.ts';

/** A batch's callback: a job of any kind, enqueued once when the batch reaches its condition. */
export type BatchCallback<P> = {
  [N in KindName<P>]: { kind: N; payload: P[N] };
}[KindName<P>];

/** What `batch()` takes. */
export interface BatchOptions<P> {
  /** The batch's id (1 to 64 letters, digits, `.`, `_` or `-`); default a random one. */
  id?: string;
  /** Enqueued once the batch is sealed and every job completed. */
  onSuccess?: BatchCallback<P>;
  /** Enqueued once the batch is sealed and every job ended, however it ended. */
  onComplete?: BatchCallback<P>;
  /** Enqueued when the first job of the batch fails for good. */
  onDeath?: BatchCallback<P>;
}

/** A batch's progress, as Redis counts it. */
export interface BatchState {
  readonly id: string;
  /** Jobs added. */
  readonly total: number;
  readonly succeeded: number;
  /** Failed for good (dead-lettered, expired). */
  readonly failed: number;
  /** Cancelled or removed before they ended. */
  readonly cancelled: number;
  /** Not ended yet: `total` less the three above. */
  readonly pending: number;
  /** No job may be added any more. */
  readonly sealed: boolean;
  /** Sealed, and every job ended: its callbacks fired. */
  readonly finished: boolean;
  /** When it was opened, sealed and finished (ms, Redis clock), or null. */
  readonly createdAtMs: number;
  readonly sealedAtMs: number | null;
  readonly finishedAtMs: number | null;
  /** Per callback it has: the id of its job once enqueued, else null. */
  readonly callbacks: Readonly<Partial<Record<BatchCallbackName, string | null>>>;
}

/** The callbacks a batch may have, as the scripts name them. */
export type BatchCallbackName = 'success' | 'complete' | 'death';

/** Batch ids: letters, digits and `. _ -`, starting with a letter or digit, at most 64. */
export const BATCH_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Jobs per script call when a batch's jobs are written. */
export const BATCH_CHUNK = 1_000;

/** Most jobs one `add()` takes (checked whole before the first is written). */
const MAX_ADD = 1_000_000;

const BATCH_OPTION_KEYS: OptionKeys<BatchOptions<unknown>> = { id: true, onSuccess: true, onComplete: true, onDeath: true };
const CALLBACK_KEYS: OptionKeys<{ kind: unknown; payload: unknown }> = { kind: true, payload: true };
const CALLBACKS: readonly [keyof BatchOptions<unknown>, BatchCallbackName][] = [
  ['onSuccess', 'success'],
  ['onComplete', 'complete'],
  ['onDeath', 'death'],
];

/** A batch checked for the open script: its id and the script's callbacks argument. */
export interface PreparedBatch {
  readonly id: string;
  readonly callbacks: readonly string[];
}

/** Throws `JOBS_INVALID_ARGUMENT` unless `id` is a batch id. */
export function assertBatchId(id: unknown, field = 'id'): asserts id is string {
  if (typeof id !== 'string' || !BATCH_ID_PATTERN.test(id)) {
    throw new InvalidArgumentError(field, `${JSON.stringify(id)} is not a batch id (1 to 64 letters, digits, '.', '_' or '-')`);
  }
}

/** Checks a batch's options, payloads included, writing nothing. */
export function prepareBatch<P>(ctx: QueueContext<P>, options: BatchOptions<P> = {}): PreparedBatch {
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('batch', 'expected { id?, onSuccess?, onComplete?, onDeath? }');
  assertOptionKeys('batch', options, BATCH_OPTION_KEYS);
  const id = options.id ?? randomHex();
  assertBatchId(id, 'batch.id');
  const callbacks: string[] = [];
  for (const [option, name] of CALLBACKS) {
    const callback = options[option] as BatchCallback<P> | undefined;
    if (callback === undefined) continue;
    const field = `batch.${option}`;
    if (typeof callback !== 'object' || callback === null) throw new InvalidArgumentError(field, 'expected { kind, payload }');
    assertOptionKeys(field, callback, CALLBACK_KEYS);
    const json = ctx.kinds.encode(callback.kind, callback.payload, `${field}.payload`);
    // The kind's defaults, as an enqueue of the callback would take them (scripts/lib/batch.lua).
    const kind = ctx.kinds.options(callback.kind);
    callbacks.push(name, callback.kind, json, `${kind.maxAttempts ?? 0},${kind.visibilityMs ?? 0},${kind.priority ?? 0}`);
  }
  return { id, callbacks };
}

/** Opens a batch (a resend, or a second open with the same callbacks, changes nothing). */
export async function openBatch<P>(ctx: QueueContext<P>, batch: PreparedBatch): Promise<void> {
  const k = ctx.keys;
  const argv = batchOpenScript.argv({ batch: k.batch(batch.id), batches: k.batches }, { id: batch.id, callbacks: batch.callbacks });
  if (Number(await ctx.scripts.run(batchOpenScript, argv)) !== BATCH_OPENED) {
    throw new JobsError(JOBS_ERROR_CODES.BATCH_CLOSED, `batch ${batch.id} exists already with other callbacks, or is sealed`, { field: 'batch.id' });
  }
}

/**
 * Adds jobs to an open batch: every job is checked first (a bad one throws, writing nothing),
 * then they are written in calls of {@link BATCH_CHUNK}, in order. A call that fails part way
 * leaves the chunks before it written and counted; the jobs of a resent chunk are written once.
 */
export async function addToBatch<P>(ctx: QueueContext<P>, id: string, jobs: readonly EnqueueRequest<P>[]): Promise<EnqueueResult[]> {
  const prepared: PreparedEnqueue[] = prepareEnqueueMany(ctx, jobs, MAX_ADD, id);
  const results: EnqueueResult[] = [];
  for (let first = 0; first < prepared.length; first += BATCH_CHUNK) {
    results.push(...(await enqueuePrepared(ctx, prepared.slice(first, first + BATCH_CHUNK))));
  }
  return results;
}

/** Seals a batch and returns its state (see scripts/batch-seal.lua). */
export async function sealBatch<P>(ctx: QueueContext<P>, id: string): Promise<BatchState> {
  const k = ctx.keys;
  const argv = batchSealScript.argv({ batch: k.batch(id), pending: k.pending, stats: k.stats, log: k.log }, { id, prefix: k.prefix, jobPrefix: k.jobPrefix, logMaxLen: ctx.logMaxLen });
  if (Number(await ctx.scripts.run(batchSealScript, argv)) === BATCH_MISSING) {
    throw new JobsError(JOBS_ERROR_CODES.BATCH_CLOSED, `batch ${id} was never opened, or finished more than a week ago`, { field: 'batch.id' });
  }
  const state = await readBatch(ctx, id);
  if (state === null) throw new JobsError(JOBS_ERROR_CODES.BATCH_CLOSED, `batch ${id} is gone`, { field: 'batch.id' });
  return state;
}

/** The state of batch `id`, or null when there is none (never opened, or expired a week after it finished). */
export async function readBatch<P>(ctx: QueueContext<P>, id: string): Promise<BatchState | null> {
  assertBatchId(id);
  await ctx.ready();
  const f = await withRedisErrors(() => ctx.client.hgetall(ctx.keys.batch(id)));
  return f.total === undefined ? null : batchStateOf(id, f);
}

/** The batches of the queue, newest first (those finished more than a week ago are gone). */
export async function listBatches<P>(ctx: QueueContext<P>, limit = 100): Promise<BatchState[]> {
  assertWholeNumber('limit', limit, 1, 10_000);
  await ctx.ready();
  // The highest scores: the open batches, then those finished last.
  const ids = (await withRedisErrors(() => ctx.client.zrange(ctx.keys.batches, String(-limit), '-1'))).reverse();
  // An id no batch could have (a hand-written member) is skipped, not allowed to fail the list.
  const states = await Promise.all(ids.filter((id) => BATCH_ID_PATTERN.test(id)).map((id) => readBatch(ctx, id)));
  return states.filter((state): state is BatchState => state !== null).sort((a, b) => b.createdAtMs - a.createdAtMs);
}

/** A batch's hash, read. */
export function batchStateOf(id: string, f: Readonly<Record<string, string>>): BatchState {
  const n = (name: string): number => Number(f[name] ?? 0);
  const at = (name: string): number | null => (f[name] === undefined ? null : Number(f[name]));
  const callbacks: Partial<Record<BatchCallbackName, string | null>> = {};
  for (const [, name] of CALLBACKS) if (f[`cb_kind:${name}`] !== undefined) callbacks[name] = f[`fired:${name}`] ?? null;
  return {
    id,
    total: n('total'),
    succeeded: n('succeeded'),
    failed: n('failed'),
    cancelled: n('cancelled'),
    pending: n('total') - n('succeeded') - n('failed') - n('cancelled'),
    sealed: f.sealed === '1',
    finished: f.finished_at_ms !== undefined,
    createdAtMs: n('created_at_ms'),
    sealedAtMs: at('sealed_at_ms'),
    finishedAtMs: at('finished_at_ms'),
    callbacks,
  };
}
