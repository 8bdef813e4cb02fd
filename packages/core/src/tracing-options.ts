import { InvalidArgumentError } from './errors.ts';

/**
 * An OpenTelemetry `Tracer` (from `trace.getTracer(...)` or your SDK's provider), typed by what
 * @jobs uses of it, so that its types do not need @opentelemetry/api installed.
 */
export interface TracerLike {
  startSpan(name: string, options?: never, context?: never): unknown;
  startActiveSpan(name: string, ...rest: never[]): unknown;
}

/** An OpenTelemetry `TracerProvider` (or the API's `trace`, for the global one), typed by what @jobs uses of it. */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): unknown;
}

/**
 * Where a producer's or worker's spans go: the tracer itself, or the provider to take one from
 * (named for the package). `{ tracerProvider: trace }` (`trace` of @opentelemetry/api) is the
 * global provider. @jobs never loads @opentelemetry/api itself (the tracer brings its own), so a
 * bundled service traces like any other.
 */
export type TracingOptions = { readonly tracer: TracerLike; readonly tracerProvider?: never } | { readonly tracerProvider: TracerProviderLike; readonly tracer?: never };

/** `SpanKind` of @opentelemetry/api: numbers its API fixes, written here so that the API is not loaded. */
export const SPAN_KIND = { CLIENT: 2, PRODUCER: 3, CONSUMER: 4 } as const;
/** `SpanStatusCode.ERROR` of @opentelemetry/api. */
export const SPAN_STATUS_ERROR = 2;

/**
 * The `tracing` option as given, checked: undefined or false (off), or exactly one of a tracer
 * or a tracer provider. Anything else (`true`, an unknown key) is a typed error naming the field.
 */
export function checkTracingOptions(tracing: unknown): TracingOptions | undefined {
  if (tracing === undefined || tracing === false) return undefined;
  if (tracing === true) throw new InvalidArgumentError('tracing', 'true is not taken: pass { tracer } or { tracerProvider } (for the global provider, { tracerProvider: trace } with trace from @opentelemetry/api)');
  if (typeof tracing !== 'object' || tracing === null) throw new InvalidArgumentError('tracing', 'expected { tracer } or { tracerProvider }, or false');
  for (const key of Object.keys(tracing)) {
    if (key !== 'tracer' && key !== 'tracerProvider') throw new InvalidArgumentError(`tracing.${key}`, 'unknown option (expected tracer or tracerProvider)');
  }
  const { tracer, tracerProvider } = tracing as { tracer?: unknown; tracerProvider?: unknown };
  if (tracer !== undefined && tracerProvider !== undefined) throw new InvalidArgumentError('tracing', 'give tracer or tracerProvider, not both');
  if (tracer !== undefined) {
    const { startSpan, startActiveSpan } = (tracer ?? {}) as { startSpan?: unknown; startActiveSpan?: unknown };
    if (typeof startSpan !== 'function' || typeof startActiveSpan !== 'function') throw new InvalidArgumentError('tracing.tracer', 'expected an OpenTelemetry Tracer (with startSpan and startActiveSpan)');
    return { tracer: tracer as TracerLike };
  }
  if (typeof (tracerProvider as { getTracer?: unknown } | null | undefined)?.getTracer !== 'function') {
    throw new InvalidArgumentError('tracing.tracerProvider', 'expected an OpenTelemetry TracerProvider (with getTracer), or give tracing.tracer');
  }
  return { tracerProvider: tracerProvider as TracerProviderLike };
}

/** The tracer `options` name: the one given, or `name`'s from the provider given. */
export function tracerOf(options: TracingOptions, name: string): unknown {
  return options.tracer ?? (options.tracerProvider as TracerProviderLike).getTracer(name);
}
