import { createRequire } from 'node:module';
import type { Logger } from '@jobs/core';
import type * as OtelApi from '@opentelemetry/api';

/** Where a producer's spans go: an OpenTelemetry `TracerProvider` (typed by what the producer uses of it). */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): unknown;
}

/** Options of the producer's OpenTelemetry tracing (see `ProducerOptions.tracing`). */
export interface ProducerTracingOptions {
  /** The provider to take the tracer from. Default: the global one (`trace` of @opentelemetry/api). */
  tracerProvider?: TracerProviderLike;
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
 * A PRODUCER span per enqueue call (one per `enqueueMany` batch, with its count), on
 * @opentelemetry/api (an optional peer: loaded only when tracing is asked for). The span is a
 * child of the caller's active span, and its context is what each job stores as its
 * `traceparent`, so the workers' spans link back to it. Tracing never fails an enqueue: if it
 * throws, the log says so and the jobs are written without a traceparent.
 */
export class ProducerTracing {
  readonly #api: typeof OtelApi;
  readonly #tracer: OtelApi.Tracer;
  readonly #queue: string;
  readonly #log: Logger;

  /** Undefined when @opentelemetry/api is not installed (then tracing is off, and said so in the log). */
  static open(queue: string, options: ProducerTracingOptions, log: Logger): ProducerTracing | undefined {
    let api: typeof OtelApi;
    try {
      api = createRequire(import.meta.url)('@opentelemetry/api') as typeof OtelApi;
    } catch {
      log.warn({}, 'tracing was asked for but @opentelemetry/api is not installed: no spans');
      return undefined;
    }
    return new ProducerTracing(api, (options.tracerProvider ?? api.trace) as OtelApi.TracerProvider, queue, log);
  }

  private constructor(api: typeof OtelApi, provider: OtelApi.TracerProvider, queue: string, log: Logger) {
    this.#api = api;
    this.#tracer = provider.getTracer('@jobs/producer');
    this.#queue = queue;
    this.#log = log;
  }

  /**
   * Runs `send` (the enqueue) in a new PRODUCER span, handing it the span's traceparent (undefined
   * when the span has no valid context); the span ends when `send` settles, with the error
   * recorded if it rejects, and `ids` of what it wrote (one job: `jobs.id`).
   */
  async send<T>(info: EnqueueSpanInfo, send: (traceparent: string | undefined) => Promise<T>, ids: (result: T) => readonly string[]): Promise<T> {
    const api = this.#api;
    let span: OtelApi.Span;
    let traceparent: string | undefined;
    try {
      span = this.#tracer.startSpan(`send ${this.#queue}`, { kind: api.SpanKind.PRODUCER, attributes: this.#attributes(info) });
      const context = span.spanContext();
      if (api.isSpanContextValid(context)) traceparent = traceparentOf(context);
    } catch (error) {
      this.#log.warn({ err: String(error) }, 'tracing failed; the enqueue goes on without a span');
      return send(undefined);
    }
    let result: T;
    try {
      result = await api.context.with(api.trace.setSpan(api.context.active(), span), () => send(traceparent));
    } catch (error) {
      this.#end(span, (s) => {
        s.recordException(error instanceof Error ? error : String(error));
        s.setStatus({ code: api.SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
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
