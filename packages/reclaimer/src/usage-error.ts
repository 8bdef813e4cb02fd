/** A command line that cannot be run as given: the CLIs print it with a hint and exit with 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Parses a whole number flag or variable, or throws {@link UsageError} naming it. */
export function parseWholeNumber(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** Checks a Redis URL from a flag or variable, or throws {@link UsageError} naming it. */
export function checkRedisUrl(name: string, url: string): string {
  if (!/^rediss?(\+cluster)?:\/\//.test(url)) throw new UsageError(`${name} must start with redis://, rediss://, redis+cluster:// or rediss+cluster://`);
  return url;
}
