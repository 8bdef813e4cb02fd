import { assertWholeNumber } from './whole-number.ts';

/** The lowest priority a job can have. */
export const MIN_PRIORITY = -1_000;

/** The highest priority a job can have. */
export const MAX_PRIORITY = 1_000;

/**
 * Returns `value` when it is a whole number from {@link MIN_PRIORITY} to {@link MAX_PRIORITY},
 * else throws `JOBS_INVALID_ARGUMENT` naming `field`. Higher runs first; 0 is the default.
 */
export function assertPriority(field: string, value: unknown): number {
  return assertWholeNumber(field, value, MIN_PRIORITY, MAX_PRIORITY);
}
