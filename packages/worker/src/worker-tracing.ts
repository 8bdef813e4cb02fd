import { InvalidArgumentError, type ClaimedJob, type Logger } from '@jobs/core';
import type * as OtelApi from '@opentelemetry/api';
import { EMPTY_TRACE_CONTEXT } from './empty-trace-context.ts';
import type { Execution, HandlerOutcome } from './execution.ts';

/**
 * An OpenTelemetry `Tracer` (from `trace.getTracer(...)` or your SDK's provider), typed by what
 * the worker uses of it, so that @jobs/worker's types do not need @opentelemetry/api installed.
 */
export interface TracerLike {
  startSpan(name: string, options?: never, context?: never): unknown;
  startActiveSpan(name: string, ...rest: never[]): unknown;
}

/** An OpenTelemetry `TracerProvider` (or the API's `trace`, for the global one), typed by what the worker uses of it. */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): unknown;
}

/**
 * Options of the worker's OpenTelemetry tracing (see `WorkerOptions.tracing`): the tracer its
 * spans go to, or the provider to take one from (named `@jobs/worker`). Pass
 * `{ tracerProvider: trace }` (`trace` of @opentelemetry/api) for the global provider. The
 * worker never loads @opentelemetry/api itself, so a bundled worker traces like any other.
 */
export type WorkerTracingOptions = { readonly tracer: TracerLike; readonly tracerProvider?: never } | { readonly tracerProvider: TracerProviderLike; readonly tracer?: never };

/** `SpanKind` and `SpanStatusCode` of @opentelemetry/api: numbers its API fixes, written here so that the API is not loaded. */
const SPAN_KIND_CLIENT = 2;
const SPAN_KIND_CONSUMER = 4;
const SPAN_STATUS_ERROR = 2;

/**
 * `tracing` as given to `createWorker`, checked: undefined or false (off), or exactly one of a
 * tracer or a tracer provider. Anything else is a typed error naming the field.
 */
export function checkTracingOptions(tracing: unknown): WorkerTracingOptions | undefined {
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

/** A W3C `traceparent` (version 00): the trace and span of the enqueue that made the job. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const INVALID_TRACE = '0'.repeat(32);
const INVALID_SPAN = '0'.repeat(16);

/** The span link to the producer's trace stored on `job` (its `traceparent`), if it has a valid one. */
function producerLink(job: ClaimedJob): OtelApi.Link | undefined {
  const match = TRACEPARENT.exec(job.traceparent ?? job.fields.traceparent ?? '');
  if (!match || match[1] === INVALID_TRACE || match[2] === INVALID_SPAN) return undefined;
  return { context: { traceId: match[1] as string, spanId: match[2] as string, traceFlags: Number.parseInt(match[3] as string, 16), isRemote: true } };
}

/**
 * One span per attempt, on the tracer the caller passed in (the worker never loads
 * @opentelemetry/api: the tracer brings its own, so bundles trace too). Each attempt's span
 * starts a trace of its own, linked to the producer's (a link, not a parent, so a job that
 * repeats or fans out does not make one giant trace), and the handler runs in it, so its own
 * spans are children. A claim call that got jobs gets a span too, linked to each job's producer.
 * Tracing never fails a job: whatever it throws is logged and the job runs on without it.
 */
export class WorkerTracing {
  readonly #tracer: OtelApi.Tracer;
  readonly #queue: string;
  readonly #log: Logger;

  /** Undefined when the provider would not give a tracer (then tracing is off, and said so in the log). */
  static open(queue: string, options: WorkerTracingOptions, log: Logger): WorkerTracing | undefined {
    let tracer: OtelApi.Tracer;
    try {
      tracer = (options.tracer ?? (options.tracerProvider as TracerProviderLike).getTracer('@jobs/worker')) as OtelApi.Tracer;
    } catch (error) {
      log.warn({ err: String(error) }, 'tracing was asked for but the tracer provider gave no tracer: no spans');
      return undefined;
    }
    return new WorkerTracing(tracer, queue, log);
  }

  private constructor(tracer: OtelApi.Tracer, queue: string, log: Logger) {
    this.#tracer = tracer;
    this.#queue = queue;
    this.#log = log;
  }

  /** Runs `execution`'s handler in a new span for its attempt (or without one if tracing fails). */
  run<C>(execution: Execution, kind: string, handler: (payload: unknown, context: C) => unknown, payload: unknown, context: C): void {
    let ran = false;
    try {
      const { job } = execution;
      const link = producerLink(job);
      const options: OtelApi.SpanOptions = {
        kind: SPAN_KIND_CONSUMER,
        root: true,
        attributes: {
          'messaging.system': 'jobs',
          'messaging.operation.type': 'process',
          'messaging.destination.name': this.#queue,
          'messaging.message.id': job.id,
          'jobs.queue': this.#queue,
          'jobs.kind': kind,
          'jobs.id': job.id,
          'jobs.attempt': job.attempts,
        },
        ...(link && { links: [link] }),
      };
      // The tracer's own API makes the span active while the handler runs (its context manager).
      this.#tracer.startActiveSpan(`process ${this.#queue}`, options, EMPTY_TRACE_CONTEXT, (span) => {
        execution.span = span;
        ran = true;
        execution.run(handler, payload, context);
      });
    } catch (error) {
      this.#log.warn({ err: String(error) }, 'tracing failed; the job runs without its span');
      if (!ran) {
        execution.span = undefined;
        execution.run(handler, payload, context);
      }
    }
  }

  /**
   * A claim call that began at `startTime` (epoch ms) got `jobs`: a span for it, from then to now,
   * linked to each job's producer span. Nothing when it got none.
   */
  claimed(startTime: number, jobs: readonly ClaimedJob[]): void {
    if (jobs.length === 0) return;
    try {
      const links: OtelApi.Link[] = [];
      for (const job of jobs) {
        const link = producerLink(job);
        if (link) links.push(link);
      }
      const span = this.#tracer.startSpan(
        `receive ${this.#queue}`,
        {
          kind: SPAN_KIND_CLIENT,
          root: true,
          startTime,
          attributes: {
            'messaging.system': 'jobs',
            'messaging.operation.type': 'receive',
            'messaging.destination.name': this.#queue,
            'messaging.batch.message_count': jobs.length,
            'jobs.queue': this.#queue,
            'jobs.count': jobs.length,
          },
          links,
        },
        EMPTY_TRACE_CONTEXT,
      );
      span.end();
    } catch (error) {
      this.#log.warn({ err: String(error) }, 'tracing failed to record a claim');
    }
  }

  /** The attempt ended: a failure is recorded on its span, which ends. */
  end(execution: Execution, outcome: HandlerOutcome): void {
    const span = execution.span as OtelApi.Span | undefined;
    execution.span = undefined;
    if (span === undefined) return;
    try {
      if (!outcome.ok) {
        const error = outcome.error;
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SPAN_STATUS_ERROR, message: error instanceof Error ? error.message : String(error) });
      }
      span.end();
    } catch (error) {
      this.#log.warn({ err: String(error) }, 'tracing failed to end a span');
    }
  }
}
