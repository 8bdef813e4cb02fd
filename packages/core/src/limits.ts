import { InvalidArgumentError } from './errors.ts';
import { assertWholeNumber } from './whole-number.ts';

/**
 * Rate limits, concurrency caps and groups: what a queue's settings look like, how they are
 * checked and how they are written to (and read from) the queue's admission hash. The verbs are in
 * commands/limits.ts; the rules themselves run inside the claim script (scripts/lib/limits.lua).
 */

/**
 * At most `max` jobs started in any sliding window of `windowMs` (Redis clock). A job enqueued
 * with `cost: n` counts as n starts (a cost above `max` as `max`).
 */
export interface RateLimit {
  /** Starts allowed per window: a whole number from 1 to 1,000,000. */
  readonly max: number;
  /** The window, in ms: from {@link MIN_RATE_WINDOW_MS} to one day. */
  readonly windowMs: number;
  /**
   * Spread the starts evenly instead of letting a window's `max` start together: one start
   * every `windowMs / (max - burst + 1)` ms, and up to `burst` at once after a quiet spell
   * (a GCRA limiter: one arrival time per limit in Redis). No sliding window of `windowMs`
   * holds more than `max` starts, burst included. Default false: a sliding window.
   */
  readonly spread?: boolean;
  /**
   * With `spread`: how many may start at once after a quiet spell, from 1 to `max`. Default
   * {@link defaultBurst}: `ceil(max / 50)` (100/s: 2, so at most 11 start in any 100 ms). A
   * larger burst absorbs claim timing jitter; it slows the steady pace a little, so that the
   * window still holds at most `max`.
   */
  readonly burst?: number;
}

/** The limits of one kind, or of every group. */
export interface KindLimits {
  /** At most this many started per sliding window, across every worker. */
  readonly rate?: RateLimit;
  /** At most this many running at once across every worker (counted from live leases). */
  readonly concurrency?: number;
}

/**
 * A queue's limits (see `Queue.setLimits`). Every one holds across all workers at once: each
 * claim checks them inside Redis.
 */
export interface QueueLimits {
  /** The whole queue: at most `max` jobs started per sliding window. */
  readonly rate?: RateLimit;
  /**
   * The whole queue: at most this many jobs running at once across every worker (counted from
   * live leases, so a killed worker's slot comes back when its lease ends).
   */
  readonly concurrency?: number;
  /** Per kind: a rate limit and a concurrency cap. */
  readonly kinds?: Readonly<Record<string, KindLimits>>;
  /** Each group (the enqueue option `group`) on its own: a rate limit and a concurrency cap. */
  readonly groups?: KindLimits;
}

/** A queue's limits as stored, and the pushbacks in force. */
export interface LimitsState extends QueueLimits {
  /** Kinds a handler's RateLimitedError holds back, and until when (Unix ms, Redis clock). */
  readonly limitedUntil: Readonly<Record<string, number>>;
}

/** The shortest rate window: shorter ones would be at the mercy of clock granularity. */
export const MIN_RATE_WINDOW_MS = 10;
/** The longest rate window (one day). */
export const MAX_RATE_WINDOW_MS = 86_400_000;
/** The most starts a rate limit may allow per window. */
export const MAX_RATE = 1_000_000;
/** The highest concurrency cap. */
export const MAX_CONCURRENCY = 1_000_000;
/** The longest group key, in characters. */
export const MAX_GROUP_KEY_LENGTH = 128;

/** Throws unless `value` is a group key: 1 to {@link MAX_GROUP_KEY_LENGTH} characters, no control characters. */
export function assertGroupKey(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_GROUP_KEY_LENGTH) {
    const got = typeof value === 'string' ? `${value.length} characters` : typeof value;
    throw new InvalidArgumentError(field, `expected a group key of 1 to ${MAX_GROUP_KEY_LENGTH} characters, got ${got}`);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new InvalidArgumentError(field, 'a group key may not hold control characters');
  return value;
}

/** A spread limit's burst when none is given: `ceil(max / 50)`, so 1 up to 50 starts per window. */
export function defaultBurst(max: number): number {
  return Math.ceil(max / 50);
}

const RATE_KEYS: ReadonlySet<string> = new Set(['max', 'windowMs', 'spread', 'burst']);

function rateText(field: string, rate: unknown): string {
  if (typeof rate !== 'object' || rate === null) throw new InvalidArgumentError(field, 'expected { max, windowMs, spread?, burst? }');
  for (const key of Object.keys(rate)) {
    if (!RATE_KEYS.has(key)) throw new InvalidArgumentError(`${field}.${key}`, 'unknown option (expected max, windowMs, spread or burst)');
  }
  const { max, windowMs, spread, burst } = rate as RateLimit;
  assertWholeNumber(`${field}.max`, max, 1, MAX_RATE);
  assertWholeNumber(`${field}.windowMs`, windowMs, MIN_RATE_WINDOW_MS, MAX_RATE_WINDOW_MS);
  if (spread !== undefined && typeof spread !== 'boolean') throw new InvalidArgumentError(`${field}.spread`, `expected true or false, got ${typeof spread}`);
  if (!spread) {
    if (burst !== undefined) throw new InvalidArgumentError(`${field}.burst`, 'a burst is for a spread limit (spread: true)');
    return `${max}/${windowMs}`;
  }
  const chosen = burst === undefined ? defaultBurst(max) : assertWholeNumber(`${field}.burst`, burst, 1, max);
  return `${max}/${windowMs}/${chosen}`;
}

function kindFields(field: string, limits: unknown, rateField: string, capField: string, out: string[]): void {
  if (typeof limits !== 'object' || limits === null) throw new InvalidArgumentError(field, 'expected { rate?, concurrency? }');
  const { rate, concurrency } = limits as KindLimits;
  for (const key of Object.keys(limits)) {
    if (key !== 'rate' && key !== 'concurrency') throw new InvalidArgumentError(`${field}.${key}`, 'unknown limit (expected rate or concurrency)');
  }
  if (rate !== undefined) out.push(rateField, rateText(`${field}.rate`, rate));
  if (concurrency !== undefined) out.push(capField, String(assertWholeNumber(`${field}.concurrency`, concurrency, 1, MAX_CONCURRENCY)));
}

/**
 * Checks `limits` (from untrusted callers too) and returns the admission-hash fields that hold them
 * (field, value, ...). `isKind` says which kind names the queue has. Throws
 * `JOBS_INVALID_ARGUMENT` on the first bad value, before anything is written.
 */
export function limitFields(limits: unknown, isKind: (name: string) => boolean): string[] {
  if (typeof limits !== 'object' || limits === null) throw new InvalidArgumentError('limits', 'expected { rate?, concurrency?, kinds?, groups? }');
  const { rate, concurrency, kinds, groups } = limits as QueueLimits;
  for (const key of Object.keys(limits)) {
    if (key !== 'rate' && key !== 'concurrency' && key !== 'kinds' && key !== 'groups') throw new InvalidArgumentError(`limits.${key}`, 'unknown option (expected rate, concurrency, kinds or groups)');
  }
  const out: string[] = [];
  if (rate !== undefined) out.push('rate', rateText('limits.rate', rate));
  if (concurrency !== undefined) out.push('cap', String(assertWholeNumber('limits.concurrency', concurrency, 1, MAX_CONCURRENCY)));
  if (kinds !== undefined) {
    if (typeof kinds !== 'object' || kinds === null) throw new InvalidArgumentError('limits.kinds', 'expected an object of kinds');
    for (const [kind, kindLimits] of Object.entries(kinds)) {
      if (!isKind(kind)) throw new InvalidArgumentError(`limits.kinds.${kind}`, `${JSON.stringify(kind)} is not a kind of this queue`);
      kindFields(`limits.kinds.${kind}`, kindLimits, `rate_kind:${kind}`, `cap_kind:${kind}`, out);
    }
  }
  if (groups !== undefined) kindFields('limits.groups', groups, 'group_rate', 'group_cap', out);
  return out;
}

function readRate(text: string | undefined): RateLimit | undefined {
  const match = text === undefined ? null : /^(\d+)\/(\d+)(?:\/(\d+))?$/.exec(text);
  if (!match) return undefined;
  const rate = { max: Number(match[1]), windowMs: Number(match[2]) };
  return match[3] === undefined ? rate : { ...rate, spread: true, burst: Number(match[3]) };
}

/** What the admission hash (`[field, value, ...]`) says of limits. */
export function readLimits(hash: readonly string[]): LimitsState {
  const fields = new Map<string, string>();
  for (let i = 0; i + 1 < hash.length; i += 2) fields.set(hash[i] as string, hash[i + 1] as string);
  const kinds: Record<string, { rate?: RateLimit; concurrency?: number }> = {};
  const limitedUntil: Record<string, number> = {};
  for (const [field, value] of fields) {
    const colon = field.indexOf(':');
    if (colon < 0) continue;
    const name = field.slice(0, colon);
    const kind = field.slice(colon + 1);
    const rate = name === 'rate_kind' ? readRate(value) : undefined;
    if (rate) (kinds[kind] ??= {}).rate = rate;
    else if (name === 'cap_kind') (kinds[kind] ??= {}).concurrency = Number(value);
    else if (name === 'limited_until') limitedUntil[kind] = Number(value);
  }
  const groupRate = readRate(fields.get('group_rate'));
  const groupCap = fields.get('group_cap');
  const state: { -readonly [K in keyof LimitsState]: LimitsState[K] } = { limitedUntil };
  const rate = readRate(fields.get('rate'));
  if (rate) state.rate = rate;
  const cap = fields.get('cap');
  if (cap !== undefined) state.concurrency = Number(cap);
  if (Object.keys(kinds).length > 0) state.kinds = kinds;
  if (groupRate || groupCap !== undefined) state.groups = { ...(groupRate ? { rate: groupRate } : {}), ...(groupCap !== undefined ? { concurrency: Number(groupCap) } : {}) };
  return state;
}
