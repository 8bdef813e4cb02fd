import { resolveDedupe, resolveUnique, type DedupeOptions, type ResolvedDedupe, type UniqueOptions } from './dedupe-options.ts';
import { InvalidArgumentError } from './errors.ts';
import { assertGroupKey } from './limits.ts';
import { assertOptionKeys, type OptionKeys } from './option-keys.ts';
import { assertPriority } from './priority.ts';
import { assertWholeNumber } from './whole-number.ts';

/** Options of one enqueue. */
export interface EnqueueOptions {
  /** Run no sooner than this many ms from now (measured on the Redis server's clock). */
  delayMs?: number;
  /** Run no sooner than this time (a Date or Unix ms). Wins over `delayMs`. */
  runAt?: Date | number;
  /** Claims allowed before the job is dead-lettered; default: the kind's, then the queue's. */
  maxAttempts?: number;
  /** Lease length for this job; default: the kind's, then the queue's. */
  visibilityMs?: number;
  /**
   * A key that makes the enqueue happen once: while the key is held (see `idempotencyTtlMs`),
   * another enqueue with it writes nothing and returns the first job's id.
   */
  idempotencyKey?: string;
  /** How long the idempotency key holds, in ms; default: the queue's (24 h). */
  idempotencyTtlMs?: number;
  /**
   * A whole number from -1000 to 1000: higher is claimed first, FIFO within a priority.
   * Default: the kind's `priority`, else 0.
   */
  priority?: number;
  /**
   * The job expires if no worker has started it this many ms after the enqueue (Redis clock):
   * it never runs, and goes to failed with `last_error` `JOBS_EXPIRED: ...`.
   */
  ttlMs?: number;
  /** Like `ttlMs`, as a time (a Date or Unix ms). Give one of the two. */
  expiresAt?: Date | number;
  /**
   * The job's group (a customer, a tenant: 1 to 128 characters): groups take fair turns, and the
   * queue's `groups` limits (see `setLimits`) hold for each group on its own.
   */
  group?: string;
  /**
   * What the job takes of the rate limits it falls under (see `setLimits`): a whole number from
   * 1 to {@link MAX_JOB_COST}, default 1. A job of cost 5 under 10 per window uses half the window.
   */
  cost?: number;
  /**
   * A W3C `traceparent` (version 00) stored on the job, so the worker's span for each attempt
   * links to the trace that enqueued it. `@jobs/producer` with `tracing` on fills it in from the
   * active OpenTelemetry context; give it here when you enqueue through `Queue` yourself.
   */
  traceparent?: string;
  /**
   * Collapse enqueues with the same key (per kind) into one job, until it ends (`until-done`),
   * for a window (`throttle`) or while it waits (`debounce`, the latest payload wins). An
   * absorbed enqueue writes nothing and answers with the id of the job that absorbed it.
   */
  dedupe?: DedupeOptions;
  /** At most one job per key (per kind) in the given states; a conflict answers with its id. */
  unique?: UniqueOptions;
}

/** The checked, script-ready form of {@link EnqueueOptions}. */
export interface ResolvedEnqueueOptions {
  delayMs: number;
  runAtMs: number;
  maxAttempts: number | undefined;
  visibilityMs: number | undefined;
  idempotencyKey: string | undefined;
  idempotencyTtlMs: number;
  priority: number | undefined;
  /** 0: none. */
  ttlMs: number;
  /** 0: none. */
  expiresAtMs: number;
  group: string | undefined;
  /** 1: the default. */
  cost: number;
  /** Undefined: none. */
  traceparent: string | undefined;
  /** From `dedupe` or `unique`; undefined: none. */
  dedupe: ResolvedDedupe | undefined;
}

/** The highest `cost` a job may have (see {@link EnqueueOptions.cost}). */
export const MAX_JOB_COST = 1_000;

/** A W3C `traceparent` of version 00 with a valid (not all-zero) trace id and span id. */
const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

const YEAR_MS = 365 * 86_400_000;

/** The keys of {@link EnqueueOptions}: any other is refused. */
export const ENQUEUE_OPTION_KEYS: OptionKeys<EnqueueOptions> = {
  delayMs: true,
  runAt: true,
  maxAttempts: true,
  visibilityMs: true,
  idempotencyKey: true,
  idempotencyTtlMs: true,
  priority: true,
  ttlMs: true,
  expiresAt: true,
  group: true,
  cost: true,
  traceparent: true,
  dedupe: true,
  unique: true,
};

/** The latest `runAt` or `expiresAt` accepted: a year from now (this machine's clock). */
export function latestTimeMs(): number {
  return Date.now() + YEAR_MS;
}

/** Every default: what a job enqueued without options gets (shared: readers never change it). */
const NO_OPTIONS: ResolvedEnqueueOptions = Object.freeze({
  delayMs: 0,
  runAtMs: 0,
  maxAttempts: undefined,
  visibilityMs: undefined,
  idempotencyKey: undefined,
  idempotencyTtlMs: 0,
  priority: undefined,
  ttlMs: 0,
  expiresAtMs: 0,
  group: undefined,
  cost: 1,
  traceparent: undefined,
  dedupe: undefined,
});

/** Checks `options` (from untrusted callers too) and fills in defaults. */
export function resolveEnqueueOptions(options: EnqueueOptions | undefined, defaultIdempotencyTtlMs: number, field = 'options'): ResolvedEnqueueOptions {
  if (options === undefined) return NO_OPTIONS;
  assertOptionKeys(field, options, ENQUEUE_OPTION_KEYS);
  const delayMs = options.delayMs === undefined ? 0 : assertWholeNumber(`${field}.delayMs`, options.delayMs, 0, YEAR_MS);
  let runAtMs = 0;
  if (options.runAt !== undefined) {
    const ms = options.runAt instanceof Date ? options.runAt.getTime() : options.runAt;
    runAtMs = assertWholeNumber(`${field}.runAt`, ms, 1, latestTimeMs());
  }
  const maxAttempts = options.maxAttempts === undefined ? undefined : assertWholeNumber(`${field}.maxAttempts`, options.maxAttempts, 1, 1_000);
  const visibilityMs = options.visibilityMs === undefined ? undefined : assertWholeNumber(`${field}.visibilityMs`, options.visibilityMs, 1, 12 * 3_600_000);
  let idempotencyKey: string | undefined;
  if (options.idempotencyKey !== undefined) {
    const key = options.idempotencyKey;
    if (typeof key !== 'string' || key.length === 0 || key.length > 512) {
      throw new InvalidArgumentError(`${field}.idempotencyKey`, 'expected a string of 1 to 512 characters');
    }
    idempotencyKey = key;
  }
  const idempotencyTtlMs =
    idempotencyKey === undefined
      ? 0
      : options.idempotencyTtlMs === undefined
        ? defaultIdempotencyTtlMs
        : assertWholeNumber(`${field}.idempotencyTtlMs`, options.idempotencyTtlMs, 1, YEAR_MS);
  const priority = options.priority === undefined ? undefined : assertPriority(`${field}.priority`, options.priority);
  if (options.ttlMs !== undefined && options.expiresAt !== undefined) throw new InvalidArgumentError(`${field}.expiresAt`, 'give ttlMs or expiresAt, not both');
  const ttlMs = options.ttlMs === undefined ? 0 : assertWholeNumber(`${field}.ttlMs`, options.ttlMs, 1, YEAR_MS);
  let expiresAtMs = 0;
  if (options.expiresAt !== undefined) {
    const ms = options.expiresAt instanceof Date ? options.expiresAt.getTime() : options.expiresAt;
    expiresAtMs = assertWholeNumber(`${field}.expiresAt`, ms, 1, latestTimeMs());
  }
  const group = options.group === undefined ? undefined : assertGroupKey(`${field}.group`, options.group);
  const cost = options.cost === undefined ? 1 : assertWholeNumber(`${field}.cost`, options.cost, 1, MAX_JOB_COST);
  const traceparent = options.traceparent;
  if (traceparent !== undefined && (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent))) {
    throw new InvalidArgumentError(`${field}.traceparent`, 'expected a W3C traceparent: 00-<32 hex trace id>-<16 hex span id>-<2 hex flags>, lowercase, ids not all zero');
  }
  if (options.dedupe !== undefined && options.unique !== undefined) throw new InvalidArgumentError(`${field}.unique`, 'give dedupe or unique, not both');
  let dedupe: ResolvedDedupe | undefined;
  if (options.dedupe !== undefined) {
    dedupe = resolveDedupe(`${field}.dedupe`, options.dedupe);
    // A debounced job's start is the debounce's to set.
    if (dedupe.debounceMs > 0 && (options.delayMs !== undefined || options.runAt !== undefined)) {
      throw new InvalidArgumentError(`${field}.${options.delayMs !== undefined ? 'delayMs' : 'runAt'}`, "a debounced job starts ttlMs after the last enqueue: give no delayMs or runAt");
    }
  } else if (options.unique !== undefined) {
    dedupe = resolveUnique(`${field}.unique`, options.unique);
  }
  return { delayMs, runAtMs, maxAttempts, visibilityMs, idempotencyKey, idempotencyTtlMs, priority, ttlMs, expiresAtMs, group, cost, traceparent, dedupe };
}
