import { InvalidArgumentError } from './errors.ts';
import { assertWholeNumber } from './whole-number.ts';

/**
 * Rate limits, concurrency caps and groups: what a queue's settings look like, how they are
 * checked and how they are written to (and read from) the queue's admission hash. The verbs are in
 * commands/limits.ts; the rules themselves run inside the claim script (scripts/lib/limits.lua).
 */

/** At most `max` jobs started in any sliding window of `windowMs` (Redis clock). */
export interface RateLimit {
  /** Starts allowed per window: a whole number from 1 to 1,000,000. */
  readonly max: number;
  /** The window, in ms: from {@link MIN_RATE_WINDOW_MS} to one day. */
  readonly windowMs: number;
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

function rateText(field: string, rate: unknown): string {
  if (typeof rate !== 'object' || rate === null) throw new InvalidArgumentError(field, 'expected { max, windowMs }');
  const { max, windowMs } = rate as RateLimit;
  assertWholeNumber(`${field}.max`, max, 1, MAX_RATE);
  assertWholeNumber(`${field}.windowMs`, windowMs, MIN_RATE_WINDOW_MS, MAX_RATE_WINDOW_MS);
  return `${max}/${windowMs}`;
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
  if (typeof limits !== 'object' || limits === null) throw new InvalidArgumentError('limits', 'expected { rate?, kinds?, groups? }');
  const { rate, kinds, groups } = limits as QueueLimits;
  for (const key of Object.keys(limits)) {
    if (key !== 'rate' && key !== 'kinds' && key !== 'groups') throw new InvalidArgumentError(`limits.${key}`, 'unknown option (expected rate, kinds or groups)');
  }
  const out: string[] = [];
  if (rate !== undefined) out.push('rate', rateText('limits.rate', rate));
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
  const match = text === undefined ? null : /^(\d+)\/(\d+)$/.exec(text);
  return match ? { max: Number(match[1]), windowMs: Number(match[2]) } : undefined;
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
  if (Object.keys(kinds).length > 0) state.kinds = kinds;
  if (groupRate || groupCap !== undefined) state.groups = { ...(groupRate ? { rate: groupRate } : {}), ...(groupCap !== undefined ? { concurrency: Number(groupCap) } : {}) };
  return state;
}
