import type { Logger } from '@jobs/core';
import { SPAN_KIND, SPAN_STATUS_ERROR, tracerOf, type TracingOptions } from '@jobs/core/internal';
import type * as OtelApi from '@opentelemetry/api';

// The option's check and types live in core, shared with the other package that traces.
export { checkTracingOptions } from '@jobs/core/internal';
export type { TracerLike, TracerProviderLike } from '@jobs/core/internal';

/**
 * Options of the producer's OpenTelemetry tracing (see `ProducerOptions.tracing`): the tracer its
 * spans go to, or the provider to take one from (named `@jobs/producer`). Pass
 * `{ tracerProvider: trace }` (`trace` of @opentelemetry/api) for the global provider. The
 * producer never loads @opentelemetry/api itself, so a bundled producer traces like any other.
 */
export type ProducerTracingOptions = TracingOptions;

const HEX_TRACE_ID = /^(?!0{32})[0-9a-f]{32}$/;
const HEX_SPAN_ID = /^(?!0{16})[0-9a-f]{16}$/;

/** Whether `context` names a real span (what the API's `isSpanContextValid` says: hex ids, not all zeros). */
function isValidSpanContext(context: OtelApi.SpanContext): boolean {
  return HEX_TRACE_ID.test(context.traceId) && HEX_SPAN_ID.test(context.spanId);
}

/** What one traced enqueue call sends: its job count, and its kind when every job is of one. */
export interface EnqueueSpanInfo {
  readonly count: number;
  readonly kind: string | undefined;
}

/** The W3C `traceparent` (version 00) of a span context. */
function traceparentOf(context: OtelApi.SpanContext): string {
  return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * A PRODUCER span per enqueue call (one per `enqueueMany` batch, with its count), on the tracer
 * the caller passed in (the producer never loads @opentelemetry/api: the tracer brings its own,
 * so bundles trace too). The span is a child of the caller's active span, and its context is
 * what each job stores as its `traceparent`, so the workers' spans link back to it. Tracing
 * never fails an enqueue: if it throws, the log says so and the jobs are written without a
 * traceparent.
 */
export class ProducerTracing {
  readonly #tracer: OtelApi.Tracer;
  readonly #queue: string;
  readonly #log: Logger;

  /** Undefined when the provider would not give a tracer (then tracing is off, and said so in the log). */
  static open(queue: string, options: ProducerTracingOptions, log: Logger): ProducerTracing | undefined {
    let tracer: OtelApi.Tracer;
    try {
      tracer = tracerOf(options, '@jobs/producer') as OtelApi.Tracer;
    } catch (error) {
      log.warn({ err: String(error) }, 'tracing was asked for but the tracer provider gave no tracer: no spans');
      return undefined;
    }
    return new ProducerTracing(tracer, queue, log);
  }

  private constructor(tracer: OtelApi.Tracer, queue: string, log: Logger) {
    this.#tracer = tracer;
    this.#queue = queue;
    this.#log = log;
  }

  /**
   * Runs `send` (the enqueue) in a new PRODUCER span, active while it runs, handing it the span's
   * traceparent (undefined when the span has no valid context); the span ends when `send`
   * settles, with the error recorded if it rejects, and `ids` of what it wrote (one job: `jobs.id`).
   */
  send<T>(info: EnqueueSpanInfo, send: (traceparent: string | undefined) => Promise<T>, ids: (result: T) => readonly string[]): Promise<T> {
    let sent: Promise<T> | undefined;
    try {
      // The tracer's own API makes the span active while `send` runs (its context manager).
      return this.#tracer.startActiveSpan(`send ${this.#queue}`, { kind: SPAN_KIND.PRODUCER, attributes: this.#attributes(info) }, (span) => {
        let traceparent: string | undefined;
        try {
          const context = span.spanContext();
          if (isValidSpanContext(context)) traceparent = traceparentOf(context);
        } catch (error) {
          this.#log.warn({ err: String(error) }, 'tracing failed; the enqueue goes on without a traceparent');
        }
        sent = this.#sendIn(span, () => send(traceparent), ids);
        return sent;
      });
    } catch (error) {
      // Thrown after `send` started (it runs on), or before (then it runs without a span).
      if (sent !== undefined) return sent;
      this.#log.warn({ err: String(error) }, 'tracing failed; the enqueue goes on without a span');
      return send(undefined);
    }
  }

  /** `send` awaited, then `span` ended: with the error recorded if it rejected, with the written ids if one. */
  async #sendIn<T>(span: OtelApi.Span, send: () => Promise<T>, ids: (result: T) => readonly string[]): Promise<T> {
    let result: T;
    try {
      result = await send();
    } catch (error) {
      this.#end(span, (s) => {
        s.recordException(error instanceof Error ? error : String(error));
        s.setStatus({ code: SPAN_STATUS_ERROR, message: error instanceof Error ? error.message : String(error) });
      });
      throw error;
    }
    this.#end(span, (s) => {
      const written = ids(result);
      if (written.length === 1) s.setAttributes({ 'messaging.message.id': written[0] as string, 'jobs.id': written[0] as string });
    });
    return result;
  }

  #attributes(info: EnqueueSpanInfo): OtelApi.Attributes {
    const attributes: OtelApi.Attributes = {
      'messaging.system': 'jobs',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'send',
      'messaging.destination.name': this.#queue,
      'jobs.queue': this.#queue,
    };
    if (info.kind !== undefined) attributes['jobs.kind'] = info.kind;
    if (info.count !== 1) attributes['messaging.batch.message_count'] = info.count;
    return attributes;
  }

  /** Ends `span` after `finish` (attributes, status); whatever tracing throws there is logged, never raised. */
  #end(span: OtelApi.Span, finish: (span: OtelApi.Span) => void): void {
    try {
      finish(span);
      span.end();
    } catch (error) {
      this.#log.warn({ err: String(error) }, 'tracing failed to end a span');
    }
  }
}
