import { InvalidArgumentError } from './errors.ts';
import { assertOptionKeys, type OptionKeys } from './option-keys.ts';
import { assertWholeNumber } from './whole-number.ts';

/**
 * Deduplication and unique jobs: the enqueue options `dedupe` and `unique`, checked here and
 * turned into what scripts/lib/dedupe.lua keeps. Both name a key (per kind): while the job that
 * owns it is in one of the key's states, another enqueue with that key writes nothing and
 * answers with the owner's id. The key is released in the same script that ends its owner.
 */

/** The states a job may be in, as `unique.states` names them. */
export type DedupeState = 'waiting' | 'delayed' | 'running' | 'completed' | 'failed' | 'cancelled';

/**
 * Collapse enqueues that name the same key (per kind) into one job.
 * - `until-done`: while the job that took the key is waiting, delayed or running, another enqueue
 *   is absorbed into it; once it ends (completed, failed, cancelled, expired, removed), the next
 *   enqueue makes a new job.
 * - `throttle`: at most one job per `ttlMs` from the first enqueue, whatever became of it.
 * - `debounce`: the job waits `ttlMs`; each enqueue absorbed while it waits takes over its payload
 *   and pushes its start to `ttlMs` after itself, but never past `maxWaitMs` after the first
 *   enqueue. Once the job runs, the next enqueue makes a new job.
 */
export interface DedupeOptions {
  /** 1 to 512 characters, per kind: the same key in two kinds are two keys. */
  readonly key: string;
  readonly mode: 'until-done' | 'throttle' | 'debounce';
  /** `throttle`: the window; `debounce`: the quiet time before the job runs (ms). Not for `until-done`. */
  readonly ttlMs?: number;
  /** `debounce` only: the longest a job waits after its first enqueue (ms, at least `ttlMs`). */
  readonly maxWaitMs?: number;
  /**
   * `'payload'`: the job that absorbs an enqueue while it has not started takes the enqueue's
   * payload (the latest data wins). Default: `'payload'` for `debounce`, else `'none'`.
   */
  readonly replace?: 'payload' | 'none';
}

/**
 * At most one job per key (per kind) in the given states: an enqueue meeting one answers with
 * that job's id and writes nothing.
 */
export interface UniqueOptions {
  /** 1 to 512 characters, per kind. */
  readonly key: string;
  /** The states in which the job holds its key. Default: waiting, delayed and running. */
  readonly states?: readonly DedupeState[];
  /**
   * The key holds no longer than this many ms after the job's enqueue, and at least as long
   * for every state in `states` it reaches (a completed job then holds it even once deleted).
   * Default: no period; the key lives while its job is in one of `states`.
   */
  readonly periodMs?: number;
}

/** A job's dedupe key as the enqueue script takes it (see scripts/enqueue.lua's options). */
export interface ResolvedDedupe {
  /** The user's key (the kind is added by keys.ts). */
  readonly key: string;
  /** Which option made it: how an absorbed enqueue's result names the reason. */
  readonly via: 'dedupe' | 'unique';
  /** Letters of scripts/lib/dedupe.lua's dedupe_letter, then '+' with a period. */
  readonly states: string;
  /** 0: none. */
  readonly periodMs: number;
  /** 0: not debounced. */
  readonly debounceMs: number;
  /** 0: no bound. */
  readonly maxWaitMs: number;
  readonly replace: boolean;
}

/** The letter scripts/lib/dedupe.lua gives each state. */
export const DEDUPE_STATE_LETTERS: Readonly<Record<DedupeState, string>> = Object.freeze({
  waiting: 'w',
  delayed: 'd',
  running: 'r',
  completed: 'c',
  failed: 'f',
  cancelled: 'x',
});

const DEDUPE_KEYS: OptionKeys<DedupeOptions> = { key: true, mode: true, ttlMs: true, maxWaitMs: true, replace: true };
const UNIQUE_KEYS: OptionKeys<UniqueOptions> = { key: true, states: true, periodMs: true };
const YEAR_MS = 365 * 86_400_000;

/** Throws unless `key` is a dedupe or unique key: 1 to 512 characters. */
export function assertDedupeKey(field: string, key: unknown): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > 512) throw new InvalidArgumentError(field, 'expected a string of 1 to 512 characters');
  return key;
}

function checkedObject(field: string, value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidArgumentError(field, `expected ${what}`);
  return value as Record<string, unknown>;
}

/** Checks the `dedupe` option (`field` names it in errors). */
export function resolveDedupe(field: string, value: unknown): ResolvedDedupe {
  const o = checkedObject(field, value, "{ key, mode, ttlMs?, maxWaitMs?, replace? }");
  assertOptionKeys(field, o, DEDUPE_KEYS);
  const key = assertDedupeKey(`${field}.key`, o.key);
  const mode = o.mode;
  if (mode !== 'until-done' && mode !== 'throttle' && mode !== 'debounce') {
    throw new InvalidArgumentError(`${field}.mode`, `expected 'until-done', 'throttle' or 'debounce', got ${JSON.stringify(mode)}`);
  }
  if (mode === 'until-done' && o.ttlMs !== undefined) throw new InvalidArgumentError(`${field}.ttlMs`, "mode 'until-done' holds the key until the job ends: give no ttlMs");
  if (mode !== 'until-done' && o.ttlMs === undefined) throw new InvalidArgumentError(`${field}.ttlMs`, `mode '${mode}' needs ttlMs`);
  const ttlMs = o.ttlMs === undefined ? 0 : assertWholeNumber(`${field}.ttlMs`, o.ttlMs, 1, YEAR_MS);
  if (mode !== 'debounce' && o.maxWaitMs !== undefined) throw new InvalidArgumentError(`${field}.maxWaitMs`, "only mode 'debounce' takes maxWaitMs");
  const maxWaitMs = o.maxWaitMs === undefined ? 0 : assertWholeNumber(`${field}.maxWaitMs`, o.maxWaitMs, ttlMs, YEAR_MS);
  if (o.replace !== undefined && o.replace !== 'payload' && o.replace !== 'none') {
    throw new InvalidArgumentError(`${field}.replace`, `expected 'payload' or 'none', got ${JSON.stringify(o.replace)}`);
  }
  const replace = (o.replace ?? (mode === 'debounce' ? 'payload' : 'none')) === 'payload';
  const L = DEDUPE_STATE_LETTERS;
  switch (mode) {
    case 'until-done':
      return { key, via: 'dedupe', states: L.waiting + L.delayed + L.running, periodMs: 0, debounceMs: 0, maxWaitMs: 0, replace };
    case 'throttle':
      // Every state, for the window: the key's own TTL is the window.
      return { key, via: 'dedupe', states: `${Object.values(L).join('')}+`, periodMs: ttlMs, debounceMs: 0, maxWaitMs: 0, replace };
    case 'debounce':
      return { key, via: 'dedupe', states: L.waiting + L.delayed, periodMs: 0, debounceMs: ttlMs, maxWaitMs, replace };
  }
}

/** Checks the `unique` option (`field` names it in errors). */
export function resolveUnique(field: string, value: unknown): ResolvedDedupe {
  const o = checkedObject(field, value, '{ key, states?, periodMs? }');
  assertOptionKeys(field, o, UNIQUE_KEYS);
  const key = assertDedupeKey(`${field}.key`, o.key);
  let states = DEDUPE_STATE_LETTERS.waiting + DEDUPE_STATE_LETTERS.delayed + DEDUPE_STATE_LETTERS.running;
  if (o.states !== undefined) {
    if (!Array.isArray(o.states) || o.states.length === 0) throw new InvalidArgumentError(`${field}.states`, 'expected a non-empty array of states');
    const letters = new Set<string>();
    o.states.forEach((state: unknown, i) => {
      const letter = typeof state === 'string' ? DEDUPE_STATE_LETTERS[state as DedupeState] : undefined;
      if (letter === undefined || !Object.hasOwn(DEDUPE_STATE_LETTERS, state as string)) {
        throw new InvalidArgumentError(`${field}.states[${i}]`, `expected one of ${Object.keys(DEDUPE_STATE_LETTERS).join(', ')}, got ${JSON.stringify(state)}`);
      }
      letters.add(letter);
    });
    states = [...letters].join('');
  }
  const periodMs = o.periodMs === undefined ? 0 : assertWholeNumber(`${field}.periodMs`, o.periodMs, 1, YEAR_MS);
  return { key, via: 'unique', states: periodMs > 0 ? `${states}+` : states, periodMs, debounceMs: 0, maxWaitMs: 0, replace: false };
}
