import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor } from '@jobs/testing';
import * as promClient from 'prom-client';
import { Registry } from 'prom-client';
import { describe, expect } from 'vitest';
import { createWorker } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

describe('worker metrics', () => {
  test("a worker given the service's registry reports run and wait times per kind and outcome on it", async ({ redis, queueName }) => {
    const registry = new Registry();
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = createWorker({ redis, queue: queueName, kinds, handlers: okHandlers, concurrency: 4, metrics: { promClient, registry } });
    let completed = 0;
    worker.on('completed', () => (completed += 1));
    await producer.enqueueMany(Array.from({ length: 5 }, (_, n) => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', n } })));
    await producer.enqueue('invoice', { customerId: 'c1', cents: 100 });
    await waitFor(() => completed === 6, { what: '6 completions' });
    const text = await registry.metrics();
    expect(text).toContain(`jobs_worker_job_duration_seconds_count{queue="${queueName}",kind="email",outcome="completed"} 5`);
    expect(text).toContain(`jobs_worker_job_duration_seconds_count{queue="${queueName}",kind="invoice",outcome="completed"} 1`);
    expect(text).toContain(`jobs_worker_job_wait_seconds_count{queue="${queueName}",kind="email"} 5`);
    expect(text).toContain(`jobs_worker_jobs_in_flight{queue="${queueName}"} 0`);
    await worker.close();
    await producer.close();
  });
});
