import type { ErrorRecord, Thrown } from './protocol.ts';

/** Turns thrown values into records that cross the boundary, and records back into errors. */
export interface ErrorCodec {
  /** What `thrown` is sent as: an Error's name, message, stack, cause and cloneable own properties. */
  toRecord(thrown: unknown): Thrown;
  /**
   * An Error made again from `record`, of the built-in class its name names (`TypeError`...),
   * with its stack, cause and properties; one with a `JOBS_…` code is marked as a @jobs error,
   * so `isJobsError(error, code)` holds for it with any copy of the package.
   */
  revive(thrown: Thrown): unknown;
}

/**
 * Makes the codec both sides use. It refers to nothing outside its own body, because the child
 * runs its source text (see child-source.ts): keep it that way.
 */
export function errorCodec(): ErrorCodec {
  const marker = Symbol.for('@jobs/error');
  const skipped = new Set(['name', 'message', 'stack', 'cause']);
  const builtIns: Record<string, ErrorConstructor> = { Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError };

  function cloneable(value: unknown): boolean {
    try {
      structuredClone(value);
      return true;
    } catch {
      return false;
    }
  }

  function toRecord(thrown: unknown, depth = 0): Thrown {
    if (!(thrown instanceof Error)) return { error: false, value: cloneable(thrown) ? thrown : String(thrown) };
    const props: Record<string, unknown> = {};
    for (const key of Object.keys(thrown)) {
      const value = (thrown as unknown as Record<string, unknown>)[key];
      if (!skipped.has(key) && cloneable(value)) props[key] = value;
    }
    const record: { -readonly [K in keyof ErrorRecord]: ErrorRecord[K] } = { error: true, name: thrown.name, message: thrown.message, stack: thrown.stack, props };
    // A cause chain is cut after a few links: a cycle must not loop.
    if (thrown.cause !== undefined && depth < 8) record.cause = toRecord(thrown.cause, depth + 1);
    return record;
  }

  function revive(thrown: Thrown): unknown {
    if (!thrown.error) return thrown.value;
    const Made = builtIns[thrown.name] ?? Error;
    const error: Error = thrown.cause === undefined ? new Made(thrown.message) : new Made(thrown.message, { cause: revive(thrown.cause) });
    Object.assign(error, thrown.props);
    if (error.name !== thrown.name) error.name = thrown.name;
    if (thrown.stack !== undefined) error.stack = thrown.stack;
    if (typeof thrown.props.code === 'string' && thrown.props.code.startsWith('JOBS_')) Object.defineProperty(error, marker, { value: true });
    return error;
  }

  return { toRecord: (thrown) => toRecord(thrown), revive };
}
