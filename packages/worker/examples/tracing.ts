import { context, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createProducer } from '@jobs/producer';
import { createWorker, defineKinds } from '@jobs/worker';

// Your service's OpenTelemetry set-up (here: spans kept in memory; in a service, your exporter).
const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const tracer = tracerProvider.getTracer('mail-service');

const kinds = defineKinds({
  email: { schema: { type: 'object', properties: { recipient: { type: 'string' } }, required: ['recipient'], additionalProperties: false } },
});
const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const producer = createProducer({ redis, queue: 'example-trace', kinds, tracing: { tracerProvider } });
const worker = createWorker({
  redis,
  queue: 'example-trace',
  kinds,
  tracing: { tracerProvider },
  handlers: {
    // Spans the handler makes (its HTTP or SQL client's) are children of the attempt's span.
    email: ({ recipient }) => tracer.startActiveSpan('smtp send', (span) => {
      span.end();
      return { sentTo: recipient };
    }),
  },
});

const id = await producer.enqueue('email', { recipient: 'alice@example.com' });
await producer.waitForResult(id, { timeoutMs: 10_000 });
await worker.close();

const spans = exporter.getFinishedSpans();
const send = spans.find((span) => span.kind === SpanKind.PRODUCER);          // 'send example-trace'
const attempt = spans.find((span) => span.kind === SpanKind.CONSUMER);       // 'process example-trace'
const smtp = spans.find((span) => span.name === 'smtp send');
console.log(attempt?.links[0]?.context.spanId === send?.spanContext().spanId); // true: linked, in a trace of its own
console.log(smtp?.parentSpanContext?.spanId === attempt?.spanContext().spanId); // true
console.log(attempt?.attributes);                   // { 'jobs.kind': 'email', 'jobs.id': id, 'jobs.attempt': 1, ... }
await producer.close();
context.disable();
