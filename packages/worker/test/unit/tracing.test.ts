import { SpanKind, SpanStatusCode, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, test } from 'vitest';
import { silentLogger } from '../../src/index.ts';
import { WorkerTracing } from '../../src/worker-tracing.ts';
import { FakeQueue } from './fake-queue.ts';
import { FakeClock, runUntil, startFakeWorker } from './harness.ts';

const PRODUCER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PRODUCER_SPAN = '00f067aa0ba902b7';

function inMemoryTracing(): { exporter: InMemorySpanExporter; tracing: WorkerTracing } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracing: WorkerTracing.open('fake', { tracerProvider: provider }, silentLogger) as WorkerTracing };
}

describe('worker tracing (fake queue, in-memory exporter)', () => {
  test('one span per attempt, linked to the trace stored on the job, with queue, kind, id and attempt; a thrown error is recorded', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.traceparent = `00-${PRODUCER_TRACE}-${PRODUCER_SPAN}-01`;
    queue.push(2);
    const { exporter, tracing } = inMemoryTracing();
    const worker = startFakeWorker(
      [queue],
      clock,
      2,
      ({ n }) => {
        if (n === 1) throw new Error('the mail server said no');
        return n;
      },
      undefined,
      tracing,
    );
    await runUntil(clock, () => queue.completed.length === 1 && queue.callsOf('fail').length === 1, 0);
    // The attempts' spans (the claims' are CLIENT spans).
    const spans = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CONSUMER);
    expect(spans).toHaveLength(2);
    for (const span of spans) {
      expect(span.name).toBe('process fake');
      expect(span.kind).toBe(SpanKind.CONSUMER);
      // A trace of its own, linked (not parented) to the producer's.
      expect(span.spanContext().traceId).not.toBe(PRODUCER_TRACE);
      expect(span.parentSpanContext).toBeUndefined();
      expect(span.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([[PRODUCER_TRACE, PRODUCER_SPAN]]);
      expect(span.attributes).toMatchObject({ 'jobs.queue': 'fake', 'jobs.kind': 'task', 'jobs.attempt': 1, 'messaging.destination.name': 'fake' });
    }
    const byId = new Map(spans.map((span) => [span.attributes['jobs.id'], span]));
    expect(byId.get('fake-0')?.status.code).not.toBe(SpanStatusCode.ERROR);
    const failed = byId.get('fake-1');
    expect(failed?.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'the mail server said no' });
    expect(failed?.events.map((event) => event.name)).toEqual(['exception']);
    await worker.scheduler.close(0);
  });

  test('a job without a valid traceparent gets a span without a link', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.traceparent = `00-${'0'.repeat(32)}-${PRODUCER_SPAN}-01`;
    queue.push(1);
    const { exporter, tracing } = inMemoryTracing();
    const worker = startFakeWorker([queue], clock, 1, ({ n }) => n, undefined, tracing);
    await runUntil(clock, () => queue.completed.length === 1, 0);
    expect(exporter.getFinishedSpans().map((span) => [span.kind, span.links])).toEqual([
      [SpanKind.CLIENT, []],
      [SpanKind.CONSUMER, []],
    ]);
    await worker.scheduler.close(0);
  });

  test('tracing that throws never fails a job: the handler runs and its result is stored', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(1);
    const broken: TracerProvider = {
      getTracer: () =>
        ({
          startSpan: () => {
            throw new Error('exporter exploded');
          },
        }) as unknown as Tracer,
    };
    const tracing = WorkerTracing.open('fake', { tracerProvider: broken }, silentLogger);
    let ran = 0;
    const worker = startFakeWorker(
      [queue],
      clock,
      1,
      ({ n }) => {
        ran += 1;
        return n;
      },
      undefined,
      tracing,
    );
    await runUntil(clock, () => queue.completed.length === 1, 0);
    expect(ran).toBe(1);
    expect(queue.callsOf('fail')).toEqual([]);
    await worker.scheduler.close(0);
  });
});
