import type { ClaimedJob, Logger } from '@jobs/core';
import { SPAN_KIND, SPAN_STATUS_ERROR, tracerOf, type TracingOptions } from '@jobs/core/internal';
import type * as OtelApi from '@opentelemetry/api';
import { EMPTY_TRACE_CONTEXT } from './empty-trace-context.ts';
import type { Execution, HandlerOutcome } from './execution.ts';

// The option's check and types live in core, shared with the other package that traces.
export { checkTracingOptions } from '@jobs/core/internal';
export type { TracerLike, TracerProviderLike } from '@jobs/core/internal';

/**
 * Options of the worker's OpenTelemetry tracing (see `WorkerOptions.tracing`): the tracer its
 * spans go to, or the provider to take one from (named `@jobs/worker`). Pass
 * `{ tracerProvider: trace }` (`trace` of @opentelemetry/api) for the global provider. The
 * worker never loads @opentelemetry/api itself, so a bundled worker traces like any other.
 */
export type WorkerTracingOptions = TracingOptions;

/** A W3C `traceparent` (version 00): the trace and span of the enqueue that made the job. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const INVALID_TRACE = '0'.repeat(32);
const INVALID_SPAN = '0'.repeat(16);

/** The span link to the producer's trace stored on `job` (its `traceparent`), if it has a valid one. */
function producerLink(job: ClaimedJob): OtelApi.Link | undefined {
  const match = TRACEPARENT.exec(job.traceparent ?? '');
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
      tracer = tracerOf(options, '@jobs/worker') as OtelApi.Tracer;
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
        kind: SPAN_KIND.CONSUMER,
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
          kind: SPAN_KIND.CLIENT,
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
