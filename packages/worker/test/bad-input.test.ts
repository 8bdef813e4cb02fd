import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { redisTest as test } from '@jobs/testing';
import * as promClient from 'prom-client';
import { describe, expect } from 'vitest';
import { closeOnSignals, createWorker, type HandlerMap, type PayloadTypesOf } from '../src/index.ts';
import { kinds } from './kinds.ts';

const tracerProvider = new BasicTracerProvider();
const handlers: HandlerMap<PayloadTypesOf<typeof kinds>> = { email: () => 1, webhook: () => 1, thumbnail: () => 1, invoice: () => 1 };

describe('worker bad input', () => {
  test('options are checked before anything starts, with the field named', ({ redis, queueName }) => {
    const cases: [Record<string, unknown>, string][] = [
      [{ concurrency: 1.5 }, 'concurrency'],
      [{ concurrency: 0 }, 'concurrency'],
      [{ concurrency: Number.NaN }, 'concurrency'],
      [{ reclaimIntervalMs: -1 }, 'reclaimIntervalMs'],
      [{ idleWaitMs: 5 }, 'idleWaitMs'],
      [{ idleWaitMs: 60_001 }, 'idleWaitMs'],
      [{ heartbeatIntervalMs: 50 }, 'heartbeatIntervalMs'],
      [{ heartbeatIntervalMs: -1 }, 'heartbeatIntervalMs'],
      [{ heartbeatIntervalMs: 1.5 }, 'heartbeatIntervalMs'],
      [{ heartbeatIntervalMs: 3_600_001 }, 'heartbeatIntervalMs'],
      [{ handlers: null }, 'handlers'],
      [{ handlers: { ...handlers, email: 'not a function' } }, 'handlers.email'],
      [{ visibilityMs: 0 }, 'options.visibilityMs'],
      [{ visibilityMs: Number.NaN }, 'options.visibilityMs'],
      [{ queue: '{x}' }, 'queue'],
      [{ metrics: {} }, 'metrics.promClient'],
      [{ metrics: { registry: new promClient.Registry() } }, 'metrics.promClient'],
      [{ metrics: { promClient: { Counter: promClient.Counter } } }, 'metrics.promClient'],
      [{ metrics: { promClient, registry: 'default' } }, 'metrics.registry'],
      [{ metrics: { promClient, registery: new promClient.Registry() } }, 'metrics.registery'],
      [{ tracing: 'yes' }, 'tracing'],
      [{ tracing: true }, 'tracing'],
      [{ tracing: {} }, 'tracing.tracerProvider'],
      [{ tracing: { tracerProvider: {} } }, 'tracing.tracerProvider'],
      [{ tracing: { tracer: { startSpan: () => undefined } } }, 'tracing.tracer'],
      [{ tracing: { tracer: tracerProvider.getTracer('t'), tracerProvider } }, 'tracing'],
      [{ tracing: { tracerProvder: tracerProvider } }, 'tracing.tracerProvder'],
      // Unknown keys, misspelt or from another library, are refused with the key named.
      [{ concurrncy: 4 }, 'options.concurrncy'],
      [{ lockDuration: 30_000 }, 'options.lockDuration'],
      [{ backoff: { type: 'fixed', delayMs: 5, delay: 5 } }, 'options.backoff.delay'],
    ];
    for (const [override, field] of cases) {
      expect(() => createWorker({ redis, queue: queueName, kinds, handlers, ...override } as never), field).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field }));
    }
  });

  test('batch entries are checked before anything starts, with the field named; unknown keys are refused', ({ redis, queueName }) => {
    const batchOf = (batch: unknown, extra: Record<string, unknown> = {}) => ({ handlers: { ...handlers, webhook: { handler: () => undefined, batch, ...extra } } });
    const cases: [Record<string, unknown>, string][] = [
      [batchOf({ size: 0, maxWaitMs: 10 }), 'handlers.webhook.batch.size'],
      [batchOf({ size: 2.5, maxWaitMs: 10 }), 'handlers.webhook.batch.size'],
      // A batch takes one slot per job: it must fit in the worker's concurrency (8 here).
      [batchOf({ size: 9, maxWaitMs: 10 }), 'handlers.webhook.batch.size'],
      [batchOf({ size: 4, minSize: 5, maxWaitMs: 10 }), 'handlers.webhook.batch.minSize'],
      [batchOf({ size: 4, minSize: 0, maxWaitMs: 10 }), 'handlers.webhook.batch.minSize'],
      [batchOf({ size: 4 }), 'handlers.webhook.batch.maxWaitMs'],
      [batchOf({ size: 4, maxWaitMs: -1 }), 'handlers.webhook.batch.maxWaitMs'],
      [batchOf({ size: 4, maxWaitMs: 3_600_001 }), 'handlers.webhook.batch.maxWaitMs'],
      [batchOf({ size: 4, maxWaitMs: 10, timeout: 10 }), 'handlers.webhook.batch.timeout'],
      [batchOf(undefined), 'handlers.webhook.batch'],
      [batchOf([4]), 'handlers.webhook.batch'],
      [batchOf({ size: 4, maxWaitMs: 10 }, { concurrency: 2 }), 'handlers.webhook.concurrency'],
      [{ handlers: { ...handlers, webhook: { handler: 'bulk', batch: { size: 4, maxWaitMs: 10 } } } }, 'handlers.webhook.handler'],
      [{ handlers: { ...handlers, webhook: null } }, 'handlers.webhook'],
    ];
    for (const [override, field] of cases) {
      expect(() => createWorker({ redis, queue: queueName, kinds, handlers, concurrency: 8, ...override } as never), field).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field }));
    }
  });

  test('close refuses a grace period that is not a whole number of ms, then closes properly', async ({ redis, queueName }) => {
    const worker = createWorker({ redis, queue: queueName, kinds, handlers });
    await expect(worker.close({ graceMs: Number.NaN })).rejects.toMatchObject({ code: 'JOBS_INVALID_ARGUMENT', field: 'graceMs' });
    await expect(worker.close({ grace: 100 } as never)).rejects.toMatchObject({ code: 'JOBS_INVALID_ARGUMENT', field: 'options.grace' });
    expect(() => closeOnSignals(worker, { signal: ['SIGTERM'] } as never)).toThrow(expect.objectContaining({ code: 'JOBS_INVALID_ARGUMENT', field: 'options.signal' }));
    await worker.close({ graceMs: 100 });
    expect(worker.running).toBe(0);
  });
});
