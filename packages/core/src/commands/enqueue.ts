import { resolveEnqueueOptions, type EnqueueOptions } from '../enqueue-options.ts';
import { assertOptionKeys, type OptionKeys } from '../option-keys.ts';
import { InvalidArgumentError, NotReplicatedError } from '../errors.ts';
import { ENQUEUE_DEDUPED, ENQUEUE_HELD, ENQUEUE_WRITTEN } from '../generated/constants.ts';
import { enqueueScript } from '../generated/enqueue.ts';
import type { KindName } from '../kinds.ts';
import type { PartitionedEnqueueOptions, PartitionRouting } from '../partition-routing.ts';
import { partitionOfKey } from '../partitions.ts';
import { randomHex } from '../random-hex.ts';
import type { QueueContext } from './queue-context.ts';

/** One job of a queue's own batch (see {@link PartitionedEnqueueRequest} for {@link Queue.enqueueMany}'s). */
export type EnqueueRequest<P> = {
  [N in KindName<P>]: { kind: N; payload: P[N]; options?: EnqueueOptions };
}[KindName<P>];

/** What {@link Queue.enqueueMany} did with one job. */
export interface EnqueueResult {
  /**
   * The job's id: the new job's, or, when nothing was written, the earlier job's that holds the
   * idempotency key, or that absorbed this one (`dedupe`, `unique`).
   */
  readonly id: string;
  /** False when nothing was written: see `heldBy`. */
  readonly created: boolean;
  /**
   * Why nothing was written (absent when `created`): an earlier job holds the idempotency key,
   * or the job `id` holds the `dedupe` or `unique` key and absorbed this enqueue.
   */
  readonly heldBy?: 'idempotency' | 'dedupe' | 'unique';
}

/**
 * Most single enqueues written in one script call. A full batch goes out at once, mid-tick, so
 * with many enqueues in flight Redis runs one batch while the next is prepared (figures in
 * docs/BENCHMARKS.md).
 */
export const ENQUEUE_BATCH = 32;

/** Most jobs in one enqueueMany call. */
const MAX_JOBS = 10_000;

/** One job of {@link Queue.enqueueMany}: {@link EnqueueRequest} whose options may pick its partition. */
export type PartitionedEnqueueRequest<P> = {
  [N in KindName<P>]: { kind: N; payload: P[N]; options?: PartitionedEnqueueOptions };
}[KindName<P>];

/** The keys of one job of a batch: any other is refused. */
export const ENQUEUE_REQUEST_KEYS: OptionKeys<{ kind: unknown; payload: unknown; options?: unknown }> = { kind: true, payload: true, options: true };

/** One job, checked and encoded for the enqueue script (see {@link prepareEnqueue}). */
export interface PreparedEnqueue {
  readonly id: string;
  /** Its share of the script's `jobs` argument: id, payload JSON, kind, options (see scripts/enqueue.lua). */
  readonly args: readonly string[];
  /** Its idempotency key in Redis, when it has one. */
  readonly idempotencyKey: string | undefined;
  /** Its dedupe key in Redis, when it has one, and the option that named it. */
  readonly dedupeKey: string | undefined;
  readonly dedupeVia: 'dedupe' | 'unique' | undefined;
}

/**
 * A job's options as the enqueue scripts read them: named fields, each absent when it has its
 * default, sent as one JSON object (scripts/lib/write-job.lua's JOB_OPTION_TYPES, which refuses
 * any other name). Times are ms; `runAtMs` and `expiresAtMs` since the epoch.
 */
export interface ScriptJobOptions {
  delayMs?: number;
  runAtMs?: number;
  maxAttempts?: number;
  visibilityMs?: number;
  /** Present when the job has an idempotency key. */
  idempotencyTtlMs?: number;
  priority?: number;
  ttlMs?: number;
  expiresAtMs?: number;
  traceparent?: string;
  group?: string;
  /** Absent: 1. */
  cost?: number;
  /** Present when the job has a dedupe key (scripts/lib/dedupe.lua): the states it holds in. */
  dedupeStates?: string;
  dedupePeriodMs?: number;
  /** 1: a job that absorbs this one takes its payload. */
  dedupeReplace?: number;
  debounceMs?: number;
  debounceMaxWaitMs?: number;
  /** The open batch the job joins (scripts/lib/batch.lua). */
  batch?: string;
}

/** The names of {@link ScriptJobOptions}, for the test that holds them to the Lua's. */
export const SCRIPT_JOB_OPTION_NAMES: OptionKeys<ScriptJobOptions> = {
  delayMs: true,
  runAtMs: true,
  maxAttempts: true,
  visibilityMs: true,
  idempotencyTtlMs: true,
  priority: true,
  ttlMs: true,
  expiresAtMs: true,
  traceparent: true,
  group: true,
  cost: true,
  dedupeStates: true,
  dedupePeriodMs: true,
  dedupeReplace: true,
  debounceMs: true,
  debounceMaxWaitMs: true,
  batch: true,
};

/**
 * Validates and encodes one job for the enqueue script (throws, writing nothing, when it is bad);
 * `batch`: the id of the open batch it joins.
 */
export function encodeEnqueue<P>(ctx: QueueContext<P>, job: EnqueueRequest<P>, payloadField: string, optionsField: string, batch?: string): PreparedEnqueue {
  const json = ctx.kinds.encode(job.kind, job.payload, payloadField);
  const kindOptions = ctx.kinds.options(job.kind);
  const options = resolveEnqueueOptions(job.options, ctx.options.idempotencyTtlMs, optionsField);
  const id = ctx.idSuffix === '' ? randomHex() : randomHex() + ctx.idSuffix;
  const maxAttempts = options.maxAttempts ?? kindOptions.maxAttempts ?? 0;
  const visibilityMs = options.visibilityMs ?? kindOptions.visibilityMs ?? 0;
  const idempotencyKey = options.idempotencyKey === undefined ? undefined : ctx.keys.idempotency(options.idempotencyKey);
  const priority = options.priority ?? kindOptions.priority ?? 0;
  // Most jobs use every default: one empty argument then, not an object.
  const fields: ScriptJobOptions = {};
  if (options.delayMs !== 0) fields.delayMs = options.delayMs;
  if (options.runAtMs !== 0) fields.runAtMs = options.runAtMs;
  if (maxAttempts !== 0) fields.maxAttempts = maxAttempts;
  if (visibilityMs !== 0) fields.visibilityMs = visibilityMs;
  if (idempotencyKey !== undefined) fields.idempotencyTtlMs = options.idempotencyTtlMs;
  if (priority !== 0) fields.priority = priority;
  if (options.ttlMs !== 0) fields.ttlMs = options.ttlMs;
  if (options.expiresAtMs !== 0) fields.expiresAtMs = options.expiresAtMs;
  if (options.traceparent !== undefined) fields.traceparent = options.traceparent;
  if (options.group !== undefined) fields.group = options.group;
  if (options.cost !== 1) fields.cost = options.cost;
  const dedupe = options.dedupe;
  if (dedupe !== undefined) {
    fields.dedupeStates = dedupe.states;
    if (dedupe.periodMs > 0) fields.dedupePeriodMs = dedupe.periodMs;
    if (dedupe.replace) fields.dedupeReplace = 1;
    if (dedupe.debounceMs > 0) {
      fields.debounceMs = dedupe.debounceMs;
      fields.delayMs = dedupe.debounceMs;
    }
    if (dedupe.maxWaitMs > 0) fields.debounceMaxWaitMs = dedupe.maxWaitMs;
  }
  if (batch !== undefined) fields.batch = batch;
  let encoded = '';
  for (const _ in fields) {
    encoded = JSON.stringify(fields);
    break;
  }
  const dedupeKey = dedupe === undefined ? undefined : ctx.keys.dedupe(job.kind, dedupe.key);
  return { id, args: [id, json, job.kind, encoded], idempotencyKey, dedupeKey, dedupeVia: dedupe?.via };
}

/**
 * Checks and encodes one job of a batch, writing nothing; throws as enqueueMany would (`at`: its
 * index in the caller's batch, for the error's field). For a caller that must check jobs bound for
 * several queues before writing to any (a partitioned queue's batch), so no job is checked twice.
 */
export function prepareEnqueue<P>(ctx: QueueContext<P>, job: EnqueueRequest<P>, at?: number, batch?: string): PreparedEnqueue {
  const prefix = at === undefined ? '' : `jobs[${at}].`;
  assertOptionKeys(at === undefined ? 'job' : `jobs[${at}]`, job, ENQUEUE_REQUEST_KEYS);
  return encodeEnqueue(ctx, job, `${prefix}payload`, `${prefix}options`, batch);
}

/** Checks a whole enqueueMany batch, writing nothing (`max`: most jobs allowed; `batch`: see {@link encodeEnqueue}). */
export function prepareEnqueueMany<P>(ctx: QueueContext<P>, jobs: readonly EnqueueRequest<P>[], max = MAX_JOBS, batch?: string): PreparedEnqueue[] {
  if (!Array.isArray(jobs)) throw new InvalidArgumentError('jobs', 'expected an array');
  if (jobs.length > max) throw new InvalidArgumentError('jobs', `at most ${max} jobs per call, got ${jobs.length}`);
  return jobs.map((job, index) => {
    if (typeof job !== 'object' || job === null) throw new InvalidArgumentError(`jobs[${index}]`, 'expected { kind, payload, options? }');
    return prepareEnqueue(ctx, job, jobs.length === 1 ? undefined : index, batch);
  });
}

/**
 * Writes prepared jobs in one script call. Per job its result, or (durable mode) a
 * {@link NotReplicatedError} naming it: written on the primary, not yet on the replicas.
 */
export async function writeEnqueues<P>(ctx: QueueContext<P>, jobs: readonly PreparedEnqueue[]): Promise<(EnqueueResult | Error)[]> {
  const keys = ctx.keys;
  const jobKeys: string[] = [];
  const args: string[] = [];
  for (const job of jobs) {
    if (job.idempotencyKey !== undefined) jobKeys.push(job.idempotencyKey);
    if (job.dedupeKey !== undefined) jobKeys.push(job.dedupeKey);
    for (const arg of job.args) args.push(arg);
  }
  const argv = enqueueScript.argv(
    { pending: keys.pending, delayed: keys.delayed, stats: keys.stats, log: keys.log, jobKeys },
    { count: jobs.length, jobPrefix: keys.jobPrefix, wakeChannel: keys.wake, prefix: keys.prefix, logMaxLen: ctx.logMaxLen, metrics: ctx.metrics, jobs: args },
  );
  // Not held to the end of the tick: enqueues are batched already, and a full batch should
  // reach Redis while the tick's other calls are still being prepared.
  const { reply, replicas } = await ctx.scripts.runAcknowledged(enqueueScript, argv, false);
  const results: (EnqueueResult | Error)[] = [];
  for (let i = 0, j = 0; i < reply.length; i += 2, j += 1) {
    const code = Number(reply[i + 1]);
    // Written is the common case: its result made here, the others by enqueueResult.
    results.push(code === ENQUEUE_WRITTEN ? { id: String(reply[i]), created: true } : enqueueResult(String(reply[i]), code, jobs[j] as PreparedEnqueue));
  }
  const { replicas: required, timeoutMs } = ctx.options.durability;
  if (replicas !== undefined && replicas < required) {
    return results.map((result) => new NotReplicatedError(`job ${(result as EnqueueResult).id}`, replicas, required, timeoutMs, [(result as EnqueueResult).id]));
  }
  return results;
}

/** The result of one job that was not written, from its reply code (scripts/enqueue.lua). */
function enqueueResult(id: string, code: number, job: PreparedEnqueue): EnqueueResult {
  if (code === ENQUEUE_HELD) return { id, created: false, heldBy: 'idempotency' };
  if (code === ENQUEUE_DEDUPED) return { id, created: false, heldBy: job.dedupeVia ?? 'dedupe' };
  throw new Error(`enqueue: unexpected reply code ${code}`);
}

/** Writes jobs from {@link prepareEnqueue} in one round trip and one atomic script. */
export async function enqueuePrepared<P>(ctx: QueueContext<P>, prepared: readonly PreparedEnqueue[]): Promise<EnqueueResult[]> {
  if (prepared.length === 0) return [];
  const answers = await writeEnqueues(ctx, prepared);
  const failed = answers.find((answer): answer is Error => answer instanceof Error);
  if (failed) {
    // One call, one answer: durable mode's shortfall names every id written.
    if (failed instanceof NotReplicatedError) {
      const ids = answers.map((answer, i) => (answer instanceof Error ? (prepared[i] as PreparedEnqueue).id : answer.id));
      throw new NotReplicatedError(`${prepared.length} jobs`, failed.acknowledged, failed.required, ctx.options.durability.timeoutMs, ids);
    }
    throw failed;
  }
  return answers as EnqueueResult[];
}

/** The options a partition's enqueue reads: `partitionKey` picked the partition already. */
function withoutPartitionKey(options: PartitionedEnqueueOptions): EnqueueOptions {
  if (typeof options !== 'object' || options === null || !('partitionKey' in options)) return options;
  const copy: PartitionedEnqueueOptions = { ...options };
  delete copy.partitionKey;
  return copy;
}

/** See {@link Queue.enqueue}. */
export async function enqueue<P, N extends KindName<P>>(routing: PartitionRouting<P>, kind: N, payload: P[N], options?: PartitionedEnqueueOptions): Promise<string> {
  let partition = routing.sole;
  if (partition === undefined) {
    partition = routing.partitionFor(options);
    await routing.ensureLayout();
  } else if (options?.partitionKey !== undefined) {
    partitionOfKey(options.partitionKey, 1);
  }
  // Checked and encoded now, so a bad job fails alone; written with the others of this tick.
  const job = { kind, payload, ...(options !== undefined && { options: withoutPartitionKey(options) }) } as unknown as EnqueueRequest<P>;
  return (await partition.enqueues.add(encodeEnqueue(partition.ctx, job, 'payload', 'options'))).id;
}

/** See {@link Queue.enqueueMany}. */
export async function enqueueMany<P>(routing: PartitionRouting<P>, jobs: readonly PartitionedEnqueueRequest<P>[]): Promise<EnqueueResult[]> {
  if (!Array.isArray(jobs)) throw new InvalidArgumentError('jobs', 'expected an array');
  if (jobs.length > MAX_JOBS) throw new InvalidArgumentError('jobs', `at most ${MAX_JOBS} jobs per call, got ${jobs.length}`);
  const sole = routing.sole;
  if (sole !== undefined) {
    // The plain queue: one batch, which reads only the options a queue knows.
    jobs.forEach((job, index) => {
      const key = (job as { options?: PartitionedEnqueueOptions } | null)?.options?.partitionKey;
      if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > 512)) {
        throw new InvalidArgumentError(`jobs[${index}].options.partitionKey`, 'expected a string of 1 to 512 characters');
      }
    });
    const plain = jobs.map((job) => (job?.options === undefined ? job : { ...job, options: withoutPartitionKey(job.options) }));
    return enqueuePrepared(sole.ctx, prepareEnqueueMany(sole.ctx, plain as readonly EnqueueRequest<P>[]));
  }
  // Every job is checked and encoded, once, before the first write anywhere.
  const groups = new Map<QueueContext<P>, { jobs: PreparedEnqueue[]; at: number[] }>();
  jobs.forEach((job, index) => {
    assertOptionKeys(`jobs[${index}]`, job, ENQUEUE_REQUEST_KEYS);
    const { ctx } = routing.partitionFor(job.options);
    const request = { kind: job.kind, payload: job.payload, ...(job.options !== undefined && { options: withoutPartitionKey(job.options) }) } as EnqueueRequest<P>;
    const group = groups.get(ctx) ?? { jobs: [], at: [] };
    groups.set(ctx, group);
    group.jobs.push(prepareEnqueue(ctx, request, jobs.length === 1 ? undefined : index));
    group.at.push(index);
  });
  await routing.ensureLayout();
  const results: EnqueueResult[] = new Array(jobs.length);
  await Promise.all(
    [...groups].map(async ([ctx, group]) => {
      const written = await enqueuePrepared(ctx, group.jobs);
      written.forEach((result, i) => {
        results[group.at[i] as number] = result;
      });
    }),
  );
  return results;
}
