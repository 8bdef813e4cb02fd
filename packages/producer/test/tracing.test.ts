import { context, SpanKind, SpanStatusCode, trace, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { redisTest as test } from '@jobs/testing';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createProducer, isJobsError } from '../src/index.ts';
import { kinds } from './kinds.ts';

function inMemory(): { exporter: InMemorySpanExporter; tracerProvider: BasicTracerProvider } {
  const exporter = new InMemorySpanExporter();
  return { exporter, tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }) };
}

/** Runs `body` inside an active span of `tracerProvider` (as a request handler would be), and returns its ids. */
async function inRequest<T>(tracerProvider: TracerProvider, body: () => Promise<T>): Promise<{ result: T; traceId: string; spanId: string }> {
  return tracerProvider.getTracer('service').startActiveSpan('POST /signup', async (span) => {
    const result = await body();
    span.end();
    return { result, traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
  });
}

describe('producer tracing', () => {
  // Context flows through async calls, as in a service with the OpenTelemetry SDK set up.
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
  });
  afterAll(() => {
    context.disable();
  });

  test("an enqueue makes a PRODUCER span, a child of the caller's span, whose context the job stores as its traceparent", async ({ redis, queueName }) => {
    const { exporter, tracerProvider } = inMemory();
    const producer = createProducer({ redis, queue: queueName, kinds, tracing: { tracerProvider } });
    const request = await inRequest(tracerProvider, () => producer.enqueue('email', { recipient: 'a@example.com' }));
    const id = request.result;
    const [send] = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.PRODUCER);
    expect(send?.name).toBe(`send ${queueName}`);
    expect(send?.spanContext().traceId).toBe(request.traceId);
    expect(send?.parentSpanContext?.spanId).toBe(request.spanId);
    expect(send?.attributes).toEqual({
      'messaging.system': 'jobs',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'send',
      'messaging.destination.name': queueName,
      'messaging.message.id': id,
      'jobs.queue': queueName,
      'jobs.kind': 'email',
      'jobs.id': id,
    });
    const stored = await redis.hget(`queue:{${queueName}}:job:${id}`, 'traceparent');
    expect(stored).toBe(`00-${request.traceId}-${send?.spanContext().spanId}-01`);
    expect((await producer.getJob(id))?.traceparent).toBe(stored);
    await producer.close();
  });

  test('enqueueMany makes one span for the batch, with its count, and every job stores its context', async ({ redis, queueName }) => {
    const { exporter, tracerProvider } = inMemory();
    const producer = createProducer({ redis, queue: queueName, kinds, tracing: { tracerProvider } });
    const results = await producer.enqueueMany([
      { kind: 'email', payload: { recipient: 'a@example.com' } },
      { kind: 'resize', payload: { image: 'a.png', width: 10 }, options: { delayMs: 60_000 } },
      { kind: 'email', payload: { recipient: 'b@example.com' } },
    ]);
    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    const [send] = spans;
    expect(send?.attributes['messaging.batch.message_count']).toBe(3);
    // Two kinds in the batch: none named.
    expect(send?.attributes['jobs.kind']).toBeUndefined();
    expect(send?.parentSpanContext).toBeUndefined();
    const expected = `00-${send?.spanContext().traceId}-${send?.spanContext().spanId}-01`;
    for (const { id } of results) expect(await redis.hget(`queue:{${queueName}}:job:${id}`, 'traceparent')).toBe(expected);
    await producer.close();
  });

  test("enqueueFlow makes one span for the flow, and every job of it stores the span's context", async ({ redis, queueName }) => {
    const { exporter, tracerProvider } = inMemory();
    const producer = createProducer({ redis, queue: queueName, kinds, tracing: { tracerProvider } });
    const flow = await producer.enqueueFlow({
      kind: 'email',
      payload: { recipient: 'parent@example.com' },
      children: [
        { kind: 'resize', payload: { image: 'a.png', width: 10 } },
        { kind: 'resize', payload: { image: 'b.png', width: 20 } },
      ],
    });
    const [send] = exporter.getFinishedSpans();
    expect(send?.attributes).toMatchObject({ 'messaging.batch.message_count': 3, 'jobs.kind': 'email', 'jobs.id': flow.id });
    const expected = `00-${send?.spanContext().traceId}-${send?.spanContext().spanId}-01`;
    for (const id of [flow.id, ...flow.children.map((child) => child.id)]) expect(await redis.hget(`queue:{${queueName}}:job:${id}`, 'traceparent')).toBe(expected);
    await producer.close();
  });

  test('tracing off (the default) stores no traceparent, even inside an active span', async ({ redis, queueName }) => {
    const { exporter, tracerProvider } = inMemory();
    const producer = createProducer({ redis, queue: queueName, kinds });
    const { result: id } = await inRequest(tracerProvider, () => producer.enqueue('email', { recipient: 'a@example.com' }, { priority: 3 }));
    const [many] = await producer.enqueueMany([{ kind: 'email', payload: { recipient: 'b@example.com' } }]);
    expect(await redis.hexists(`queue:{${queueName}}:job:${id}`, 'traceparent')).toBe(0);
    expect(await redis.hexists(`queue:{${queueName}}:job:${many?.id}`, 'traceparent')).toBe(0);
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['POST /signup']);
    await producer.close();
  });

  test('a refused enqueue records its error on its span, and nothing is written', async ({ redis, queueName }) => {
    const { exporter, tracerProvider } = inMemory();
    const producer = createProducer({ redis, queue: queueName, kinds, tracing: { tracerProvider } });
    const error = await producer.enqueue('email', { recipient: 'not an address' }).catch((e: unknown) => e);
    expect(isJobsError(error, 'JOBS_VALIDATION')).toBe(true);
    const [send] = exporter.getFinishedSpans();
    expect(send?.status.code).toBe(SpanStatusCode.ERROR);
    expect(send?.events.map((event) => event.name)).toEqual(['exception']);
    expect((await producer.stats()).pendingDepth).toBe(0);
    await producer.close();
  });

  test('a tracer that throws never fails an enqueue: the job is written, without a traceparent', async ({ redis, queueName }) => {
    const broken: TracerProvider = {
      getTracer: () =>
        ({
          startSpan: () => {
            throw new Error('exporter exploded');
          },
        }) as unknown as Tracer,
    };
    const producer = createProducer({ redis, queue: queueName, kinds, tracing: { tracerProvider: broken } });
    const id = await producer.enqueue('email', { recipient: 'a@example.com' });
    const [many] = await producer.enqueueMany([{ kind: 'email', payload: { recipient: 'b@example.com' } }]);
    expect((await producer.getJob(id))?.status).toBe('pending');
    expect(await redis.hexists(`queue:{${queueName}}:job:${id}`, 'traceparent')).toBe(0);
    expect((await producer.getJob(many?.id as string))?.status).toBe('pending');
    await producer.close();
  });

  test("a traceparent given in the options is stored as given, inside the producer's span", async ({ redis, queueName }) => {
    const { exporter, tracerProvider } = inMemory();
    const producer = createProducer({ redis, queue: queueName, kinds, tracing: { tracerProvider } });
    const own = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const id = await producer.enqueue('email', { recipient: 'a@example.com' }, { traceparent: own });
    expect(await redis.hget(`queue:{${queueName}}:job:${id}`, 'traceparent')).toBe(own);
    expect(exporter.getFinishedSpans()).toHaveLength(1);
    await producer.close();
  });

  test('tracing: { tracerProvider: trace } takes the global tracer provider', async ({ redis, queueName }) => {
    const { exporter, tracerProvider } = inMemory();
    trace.setGlobalTracerProvider(tracerProvider);
    try {
      const producer = createProducer({ redis, queue: queueName, kinds, tracing: { tracerProvider: trace } });
      const id = await producer.enqueue('email', { recipient: 'a@example.com' });
      const [send] = exporter.getFinishedSpans();
      expect(send?.attributes['jobs.id']).toBe(id);
      expect(await redis.hget(`queue:{${queueName}}:job:${id}`, 'traceparent')).toBe(`00-${send?.spanContext().traceId}-${send?.spanContext().spanId}-01`);
      await producer.close();
    } finally {
      trace.disable();
    }
  });

  test('a bad tracing option is refused with the field named, before any connection opens', async ({ redis, queueName }) => {
    expect(() => createProducer({ redis, queue: queueName, kinds, tracing: 'yes' as never })).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'tracing' }));
    expect(() => createProducer({ redis, queue: queueName, kinds, tracing: { tracerProvider: {} as never } })).toThrow(expect.objectContaining({ field: 'tracing.tracerProvider' }));
    // true once meant the global provider, which needs @opentelemetry/api loaded: refused, saying what to pass.
    expect(() => createProducer({ redis, queue: queueName, kinds, tracing: true as never })).toThrow(expect.objectContaining({ field: 'tracing', message: expect.stringContaining('{ tracerProvider: trace }') }));
    const { tracerProvider } = inMemory();
    expect(() => createProducer({ redis, queue: queueName, kinds, tracing: { tracerProvider, tracer: tracerProvider.getTracer('t') } as never })).toThrow(expect.objectContaining({ field: 'tracing' }));
    expect(() => createProducer({ redis, queue: queueName, kinds, tracing: { tracer: {} as never } })).toThrow(expect.objectContaining({ field: 'tracing.tracer' }));
    expect(() => createProducer({ redis, queue: queueName, kinds, tracing: { provider: tracerProvider } as never })).toThrow(expect.objectContaining({ field: 'tracing.provider' }));
  });

  test('a tracer passed in (tracing.tracer) makes the send span, a child of the active one, and the job stores its context', async ({ redis, queueName }) => {
    const { exporter, tracerProvider } = inMemory();
    const producer = createProducer({ redis, queue: queueName, kinds, tracing: { tracer: tracerProvider.getTracer('signup-service') } });
    const { result: id, spanId } = await inRequest(tracerProvider, () => producer.enqueue('email', { recipient: 'a@example.com' }));
    const send = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.PRODUCER);
    expect(send?.instrumentationScope.name).toBe('signup-service');
    expect(send?.parentSpanContext?.spanId).toBe(spanId);
    expect(await redis.hget(`queue:{${queueName}}:job:${id}`, 'traceparent')).toBe(`00-${send?.spanContext().traceId}-${send?.spanContext().spanId}-01`);
    await producer.close();
  });
});
