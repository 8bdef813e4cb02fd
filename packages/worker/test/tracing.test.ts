import { context, SpanKind, SpanStatusCode, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor } from '@jobs/testing';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createWorker, type ClaimedJob } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

function inMemory(): { exporter: InMemorySpanExporter; tracerProvider: BasicTracerProvider } {
  const exporter = new InMemorySpanExporter();
  return { exporter, tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }) };
}

const byKind = (spans: readonly ReadableSpan[], kind: SpanKind): ReadableSpan[] => spans.filter((span) => span.kind === kind);
const linkIds = (span: ReadableSpan | undefined): string[][] => (span?.links ?? []).map((link) => [link.context.traceId, link.context.spanId]);

describe('worker tracing', () => {
  // Context flows through async calls, as in a service with the OpenTelemetry SDK set up.
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
  });
  afterAll(() => {
    context.disable();
  });

  test('each attempt of a job gets its own span, with the attempt number, and a failed attempt records its error', async ({ redis, queueName }) => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const producer = createProducer({ redis, queue: queueName, kinds });
    let failed = 0;
    const webhook = (): never => {
      throw new Error('502 from the endpoint');
    };
    const worker = createWorker({ redis, queue: queueName, kinds, tracing: { tracerProvider }, handlers: { ...okHandlers, webhook } });
    worker.on('failed', () => (failed += 1));
    // webhook: 2 attempts, no backoff; then dead-lettered.
    const id = await producer.enqueue('webhook', { url: 'https://example.com/hook' });
    await waitFor(() => failed === 1, { what: 'the webhook dead-lettered after 2 attempts' });
    const spans = exporter.getFinishedSpans().filter((span) => span.attributes['jobs.id'] === id);
    expect(spans.map((span) => span.attributes['jobs.attempt']).sort()).toEqual([1, 2]);
    for (const span of spans) {
      expect(span.name).toBe(`process ${queueName}`);
      expect(span.attributes).toMatchObject({ 'jobs.queue': queueName, 'jobs.kind': 'webhook' });
      expect(span.status).toMatchObject({ code: SpanStatusCode.ERROR, message: '502 from the endpoint' });
    }
    await worker.close();
    await producer.close();
  });

  test("each job of a batch gets its own attempt span, and a failed entry's error is recorded on its job's span only", async ({ redis, queueName }) => {
    const { exporter, tracerProvider } = inMemory();
    const producer = createProducer({ redis, queue: queueName, kinds });
    const webhook = { batch: { size: 2, maxWaitMs: 100 }, handler: (jobs: readonly { payload: { url: string } }[]) => jobs.map((job) => (job.payload.url.endsWith('/bad') ? new Error('410 gone') : { posted: job.payload.url })) };
    const worker = createWorker({ redis, queue: queueName, kinds, concurrency: 2, tracing: { tracerProvider }, handlers: { ...okHandlers, webhook } });
    const [good, bad] = (await producer.enqueueMany(['https://example.com/ok', 'https://example.com/bad'].map((url) => ({ kind: 'webhook' as const, payload: { url } })))).map((job) => job.id);
    await producer.waitForResult(good as string);
    await producer.waitForResult(bad as string).catch(() => undefined);
    await waitFor(() => byKind(exporter.getFinishedSpans(), SpanKind.CONSUMER).length >= 3, { what: 'the three attempts\' spans ended' });
    const attempts = byKind(exporter.getFinishedSpans(), SpanKind.CONSUMER);
    const of = (id: string | undefined) => attempts.filter((span) => span.attributes['jobs.id'] === id);
    expect(of(good).map((span) => span.status.code)).toEqual([SpanStatusCode.UNSET]);
    // webhook: 2 attempts; the bad one fails both, alone the second time.
    expect(of(bad).map((span) => [span.attributes['jobs.attempt'], span.status.message])).toEqual([
      [1, '410 gone'],
      [2, '410 gone'],
    ]);
    await worker.close();
    await producer.close();
  });

  test("a tracer passed in (tracing.tracer) gets each attempt's span, and the handler's own spans are its children", async ({ redis, queueName }) => {
    const { exporter, tracerProvider } = inMemory();
    const tracer = tracerProvider.getTracer('mail-service');
    const producer = createProducer({ redis, queue: queueName, kinds });
    const email = (): { sentTo: string } => tracer.startActiveSpan('smtp send', (span) => {
      span.end();
      return { sentTo: 'a@example.com' };
    });
    const worker = createWorker({ redis, queue: queueName, kinds, tracing: { tracer }, handlers: { ...okHandlers, email } });
    const id = await producer.enqueue('email', { recipient: 'a@example.com' });
    await producer.waitForResult(id, { timeoutMs: 10_000 });
    await waitFor(() => byKind(exporter.getFinishedSpans(), SpanKind.CONSUMER).length === 1, { what: "the attempt's span ended" });
    const [attempt] = byKind(exporter.getFinishedSpans(), SpanKind.CONSUMER);
    const smtp = exporter.getFinishedSpans().find((span) => span.name === 'smtp send');
    expect(attempt?.instrumentationScope.name).toBe('mail-service');
    expect(attempt?.attributes).toMatchObject({ 'jobs.id': id, 'jobs.kind': 'email', 'jobs.attempt': 1 });
    expect(smtp?.parentSpanContext?.spanId).toBe(attempt?.spanContext().spanId);
    expect(smtp?.spanContext().traceId).toBe(attempt?.spanContext().traceId);
    await worker.close();
    await producer.close();
  });

  test("from producer to worker: each attempt's span links to the producer's span (a link, not a parent), in a trace of its own", async ({ redis, queueName }) => {
    const { exporter, tracerProvider } = inMemory();
    const producer = createProducer({ redis, queue: queueName, kinds, tracing: { tracerProvider } });
    const email = ({ recipient }: { recipient: string }, job: { attempt: number }): unknown => {
      if (job.attempt === 1) throw new Error('the mail server said no');
      return { sentTo: recipient };
    };
    const worker = createWorker({ redis, queue: queueName, kinds, tracing: { tracerProvider }, handlers: { ...okHandlers, email } });
    let completed = 0;
    worker.on('completed', () => (completed += 1));
    const id = await producer.enqueue('email', { recipient: 'a@example.com' });
    await waitFor(() => completed === 1, { what: 'the email completed on its second attempt' });
    const spans = exporter.getFinishedSpans();
    const [send] = byKind(spans, SpanKind.PRODUCER);
    const producerIds = [send?.spanContext().traceId, send?.spanContext().spanId];
    const attempts = byKind(spans, SpanKind.CONSUMER).filter((span) => span.attributes['jobs.id'] === id);
    attempts.sort((a, b) => Number(a.attributes['jobs.attempt']) - Number(b.attributes['jobs.attempt']));
    expect(attempts.map((span) => span.attributes['jobs.attempt'])).toEqual([1, 2]);
    for (const span of attempts) {
      expect(linkIds(span)).toEqual([producerIds]);
      expect(span.parentSpanContext).toBeUndefined();
      expect(span.spanContext().traceId).not.toBe(send?.spanContext().traceId);
      expect(span.attributes).toMatchObject({ 'messaging.system': 'jobs', 'messaging.destination.name': queueName, 'messaging.operation.type': 'process', 'jobs.kind': 'email', 'jobs.id': id });
    }
    // Two traces, one per attempt: a retried job does not grow one trace.
    expect(attempts[0]?.spanContext().traceId).not.toBe(attempts[1]?.spanContext().traceId);
    expect(attempts[0]?.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'the mail server said no' });
    expect(attempts[1]?.status.code).not.toBe(SpanStatusCode.ERROR);
    await worker.close();
    await producer.close();
  });

  test("the handler's own spans are children of its attempt's span", async ({ redis, queueName }) => {
    const { exporter, tracerProvider } = inMemory();
    const producer = createProducer({ redis, queue: queueName, kinds });
    const email = async ({ recipient }: { recipient: string }): Promise<unknown> => {
      // As a handler's instrumented client (HTTP, SQL) would: a span in the active context.
      await tracerProvider.getTracer('mailer').startActiveSpan('smtp send', async (span) => {
        await new Promise((resolve) => setImmediate(resolve));
        span.end();
      });
      return { sentTo: recipient };
    };
    const worker = createWorker({ redis, queue: queueName, kinds, tracing: { tracerProvider }, handlers: { ...okHandlers, email } });
    let completed = 0;
    worker.on('completed', () => (completed += 1));
    await producer.enqueue('email', { recipient: 'a@example.com' });
    await waitFor(() => completed === 1, { what: 'the email completed' });
    const spans = exporter.getFinishedSpans();
    const [attempt] = byKind(spans, SpanKind.CONSUMER);
    const child = spans.find((span) => span.name === 'smtp send');
    expect(child?.parentSpanContext?.spanId).toBe(attempt?.spanContext().spanId);
    expect(child?.spanContext().traceId).toBe(attempt?.spanContext().traceId);
    await worker.close();
    await producer.close();
  });

  test("a claim call that got jobs has a span with the queue and the count, linked to the jobs' producers", async ({ redis, queueName }) => {
    const { exporter, tracerProvider } = inMemory();
    const producer = createProducer({ redis, queue: queueName, kinds, tracing: { tracerProvider } });
    await producer.enqueueMany([0, 1, 2].map((n) => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', n } })));
    const worker = createWorker({ redis, queue: queueName, kinds, tracing: { tracerProvider }, handlers: okHandlers, concurrency: 4 });
    let completed = 0;
    worker.on('completed', () => (completed += 1));
    await waitFor(() => completed === 3, { what: '3 completions' });
    const spans = exporter.getFinishedSpans();
    const [send] = byKind(spans, SpanKind.PRODUCER);
    const claims = byKind(spans, SpanKind.CLIENT);
    expect(claims.length).toBeGreaterThan(0);
    // Only claims that got jobs have spans, and between them they got the three.
    expect(claims.reduce((sum, span) => sum + Number(span.attributes['jobs.count']), 0)).toBe(3);
    for (const span of claims) {
      expect(span.attributes['jobs.count']).toBeGreaterThan(0);
      expect(span.name).toBe(`receive ${queueName}`);
      expect(span.attributes).toMatchObject({ 'messaging.system': 'jobs', 'messaging.operation.type': 'receive', 'messaging.destination.name': queueName, 'jobs.queue': queueName });
      expect(span.attributes['messaging.batch.message_count']).toBe(span.attributes['jobs.count']);
      expect(linkIds(span)).toEqual(Array.from({ length: Number(span.attributes['jobs.count']) }, () => [send?.spanContext().traceId, send?.spanContext().spanId]));
    }
    await worker.close();
    await producer.close();
  });

  test('a worker without tracing is handed no traceparent, though the job stores one', async ({ redis, queueName }) => {
    const { tracerProvider } = inMemory();
    const producer = createProducer({ redis, queue: queueName, kinds, tracing: { tracerProvider } });
    const worker = createWorker({ redis, queue: queueName, kinds, handlers: okHandlers });
    const seen: ClaimedJob[] = [];
    worker.on('completed', ({ job }) => seen.push(job));
    const id = await producer.enqueue('email', { recipient: 'a@example.com' });
    await waitFor(() => seen.length === 1, { what: 'the email completed' });
    expect(seen[0]?.traceparent).toBeUndefined();
    expect(seen[0]?.fields.traceparent).toBeUndefined();
    expect((await producer.getJob(id))?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await worker.close();
    await producer.close();
  });

  test('a tracer that throws never fails a job: it completes with its result', async ({ redis, queueName }) => {
    const broken: TracerProvider = {
      getTracer: () =>
        ({
          startSpan: () => {
            throw new Error('exporter exploded');
          },
        }) as unknown as Tracer,
    };
    const producer = createProducer({ redis, queue: queueName, kinds, tracing: { tracerProvider: broken } });
    const worker = createWorker({ redis, queue: queueName, kinds, tracing: { tracerProvider: broken }, handlers: okHandlers });
    const id = await producer.enqueue('email', { recipient: 'a@example.com' });
    await expect(producer.waitForResult(id, { timeoutMs: 10_000 })).resolves.toEqual({ sentTo: 'a@example.com' });
    expect((await producer.getJob(id))?.attempts).toBe(1);
    await worker.close();
    await producer.close();
  });
});
