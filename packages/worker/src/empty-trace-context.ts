/**
 * An OpenTelemetry `Context` with nothing in it (what @opentelemetry/api calls `ROOT_CONTEXT`),
 * made here so that the worker never loads the API itself: an attempt's span and its handler
 * start from it, so nothing active where the worker was created (a request's span, baggage)
 * leaks into every job. Immutable, as the API's contract asks: a set or delete makes a copy.
 */
export class EmptyTraceContext {
  readonly #values: ReadonlyMap<symbol, unknown>;

  constructor(values: ReadonlyMap<symbol, unknown> = new Map()) {
    this.#values = values;
  }

  /** The value under `key`, if any. */
  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }

  /** A copy with `key` set to `value`. */
  setValue(key: symbol, value: unknown): EmptyTraceContext {
    const values = new Map(this.#values);
    values.set(key, value);
    return new EmptyTraceContext(values);
  }

  /** A copy without `key`. */
  deleteValue(key: symbol): EmptyTraceContext {
    const values = new Map(this.#values);
    values.delete(key);
    return new EmptyTraceContext(values);
  }
}

/** The one empty context every attempt's span starts from. */
export const EMPTY_TRACE_CONTEXT = new EmptyTraceContext();
