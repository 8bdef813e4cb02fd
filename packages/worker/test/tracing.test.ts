import { SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

describe('worker tracing', () => {
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
});
