import { context, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createProducer, defineKinds } from '@jobs/producer';

// Your service's OpenTelemetry set-up (here: spans kept in memory; in a service, your exporter).
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const kinds = defineKinds({
  email: { schema: { type: 'object', properties: { recipient: { type: 'string' } }, required: ['recipient'], additionalProperties: false } },
});
// { tracerProvider: trace } (trace from @opentelemetry/api) takes the global tracer provider instead.
const producer = createProducer({ redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', queue: 'example-traced', kinds, tracing: { tracerProvider } });

// Inside a request's span, as an instrumented HTTP server would run your handler.
const id = await tracerProvider.getTracer('signup-service').startActiveSpan('POST /signup', async (request) => {
  const jobId = await producer.enqueue('email', { recipient: 'alice@example.com' });
  request.end();
  return jobId;
});

// The enqueue's span ('send example-traced', a PRODUCER child of the request's span) is the
// context the job stores; workers with tracing on link each attempt's span to it.
const send = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.PRODUCER);
console.log((await producer.getJob(id))?.traceparent === `00-${send?.spanContext().traceId}-${send?.spanContext().spanId}-01`); // true
await producer.close();
context.disable();
