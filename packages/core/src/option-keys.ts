import { InvalidArgumentError } from './errors.ts';

/**
 * The keys an options object may have, each set to true: written as a record over the options
 * type, so that the compiler says when an option is added to the type and not here.
 */
export type OptionKeys<T> = { readonly [K in keyof Required<T>]: true };

/**
 * Throws `JOBS_INVALID_ARGUMENT` unless `value` is an object whose own keys are all in `known`:
 * a misspelt or unsupported option (`prority`, `ttl`) is refused, not silently ignored. The
 * error's field is `field` and the key (`options.prority`); `field` '' names the key alone.
 * Returns `value`, typed as the object it was checked to be.
 */
export function assertOptionKeys<T extends object>(field: string, value: unknown, known: OptionKeys<T>): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidArgumentError(field === '' ? 'options' : field, 'expected an object');
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(known, key)) {
      throw new InvalidArgumentError(field === '' ? key : `${field}.${key}`, `unknown option ${JSON.stringify(key)} (expected one of ${Object.keys(known).join(', ')})`);
    }
  }
  return value as T;
}
