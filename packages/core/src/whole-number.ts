import { InvalidArgumentError } from './errors.ts';

/**
 * Returns `value` when it is a whole number from `min` to `max`, else throws
 * {@link InvalidArgumentError} naming `field`. Every count, limit and duration that callers
 * pass goes through here, so NaN, fractions, negatives and strings get the same clear error.
 */
export function assertWholeNumber(field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(field, `expected a whole number from ${min} to ${max}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
  }
  return value;
}
