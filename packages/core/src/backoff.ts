import { InvalidArgumentError } from './errors.ts';
import { assertOptionKeys } from './option-keys.ts';

/**
 * How long a failed job waits before its next attempt.
 * - `fixed`: always `delayMs`.
 * - `exponential`: `delayMs * 2^(attempt-1)`, capped at `maxDelayMs`.
 * Both take `jitter` (0 to 1): the delay is lowered by a random share of up to that fraction,
 * so jobs that failed together do not all retry in the same millisecond.
 */
export type BackoffPolicy =
  | { type: 'fixed'; delayMs: number; jitter?: number }
  | { type: 'exponential'; delayMs: number; maxDelayMs?: number; jitter?: number };

/** The default: exponential from 1 s, capped at 1 h, with 20% jitter. */
export const DEFAULT_BACKOFF: BackoffPolicy = Object.freeze({ type: 'exponential', delayMs: 1_000, maxDelayMs: 3_600_000, jitter: 0.2 });

/** Throws {@link InvalidArgumentError} unless `policy` is a usable {@link BackoffPolicy}. */
export function assertBackoffPolicy(policy: unknown, field = 'backoff'): asserts policy is BackoffPolicy {
  if (typeof policy !== 'object' || policy === null) throw new InvalidArgumentError(field, 'expected { type, delayMs }');
  const p = policy as Record<string, unknown>;
  if (p.type !== 'fixed' && p.type !== 'exponential') {
    throw new InvalidArgumentError(`${field}.type`, `expected "fixed" or "exponential", got ${JSON.stringify(p.type)}`);
  }
  if (p.type === 'fixed') assertOptionKeys(field, policy, { type: true, delayMs: true, jitter: true });
  else assertOptionKeys(field, policy, { type: true, delayMs: true, maxDelayMs: true, jitter: true });
  const nonNegative = (name: string, value: unknown, max = Number.MAX_SAFE_INTEGER): void => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) {
      throw new InvalidArgumentError(`${field}.${name}`, `expected a number from 0 to ${max}, got ${String(value)}`);
    }
  };
  nonNegative('delayMs', p.delayMs);
  if (p.maxDelayMs !== undefined) nonNegative('maxDelayMs', p.maxDelayMs);
  if (p.jitter !== undefined) nonNegative('jitter', p.jitter, 1);
}

/**
 * The delay in ms before the attempt after `attempt` (1 = the first attempt just failed).
 * `random` returns a number in [0, 1); pass a fixed one in tests.
 */
export function backoffDelayMs(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  const base =
    policy.type === 'fixed'
      ? policy.delayMs
      : Math.min(policy.delayMs * 2 ** Math.max(0, attempt - 1), policy.maxDelayMs ?? Number.MAX_SAFE_INTEGER);
  const jitter = policy.jitter ?? 0;
  return Math.max(0, Math.round(base * (1 - jitter * random())));
}
