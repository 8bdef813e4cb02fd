import * as promClient from 'prom-client';
import { Registry } from 'prom-client';
import { describe, expect, test } from 'vitest';
import { PermanentError } from '../../src/index.ts';
import { WorkerMetrics } from '../../src/worker-metrics.ts';
import { FakeQueue } from './fake-queue.ts';
import { deferred, FakeClock, runUntil, startFakeWorker } from './harness.ts';

/** The value of `name` (a histogram's `_count`, `_sum`, or a plain metric) for labels that include `labels`. */
async function valueOf(registry: Registry, name: string, labels: Record<string, string | number>): Promise<number | undefined> {
  const metrics = await registry.getMetricsAsJSON();
  for (const metric of metrics) {
    for (const value of metric.values as { metricName?: string; labels: Record<string, string | number>; value: number }[]) {
      if ((value.metricName ?? metric.name) === name && Object.entries(labels).every(([key, label]) => value.labels[key] === label)) return value.value;
    }
  }
  return undefined;
}

describe('worker metrics (fake queue, fake clock)', () => {
  test('run time per kind and outcome, wait since enqueue, and jobs in flight land on the registry passed in', async () => {
    const clock = new FakeClock();
    const queue = new FakeQueue(clock);
    queue.push(3);
    const registry = new Registry();
    const hold = deferred();
    let running = (): number => 0;
    const metrics = new WorkerMetrics({ promClient, registry }, 'fake', () => running());
    const worker = startFakeWorker(
      [queue],
      clock,
      3,
      async ({ n }) => {
        if (n === 1) throw new PermanentError('bad input');
        if (n === 2) throw new Error('try again');
        await hold.promise;
        await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), 20));
        return n;
      },
      metrics,
    );
    running = () => worker.scheduler.running;
    await runUntil(clock, () => queue.callsOf('fail').length === 2, 0);
    expect(await valueOf(registry, 'jobs_worker_jobs_in_flight', { queue: 'fake' })).toBe(1);
    hold.resolve();
    await runUntil(clock, () => queue.completed.length === 1, 5);
    await runUntil(clock, () => worker.scheduler.running === 0, 0);
    expect(await valueOf(registry, 'jobs_worker_job_duration_seconds_count', { queue: 'fake', kind: 'task', outcome: 'completed' })).toBe(1);
    expect(await valueOf(registry, 'jobs_worker_job_duration_seconds_sum', { queue: 'fake', kind: 'task', outcome: 'completed' })).toBeCloseTo(0.02, 3);
    expect(await valueOf(registry, 'jobs_worker_job_duration_seconds_count', { queue: 'fake', kind: 'task', outcome: 'failed' })).toBe(1);
    expect(await valueOf(registry, 'jobs_worker_job_duration_seconds_count', { queue: 'fake', kind: 'task', outcome: 'retried' })).toBe(1);
    expect(await valueOf(registry, 'jobs_worker_job_wait_seconds_count', { queue: 'fake', kind: 'task' })).toBe(3);
    expect(await valueOf(registry, 'jobs_worker_job_wait_seconds_sum', { queue: 'fake', kind: 'task' })).toBe(3);
    await worker.scheduler.close(0);
    // A closed worker no longer counts towards jobs in flight.
    expect(await valueOf(registry, 'jobs_worker_jobs_in_flight', { queue: 'fake' })).toBeUndefined();
  });

  test('two workers on one registry share its metrics, told apart by queue', async () => {
    const registry = new Registry();
    const first = new WorkerMetrics({ promClient, registry }, 'mail', () => 2);
    const second = new WorkerMetrics({ promClient, registry }, 'mail', () => 3);
    new WorkerMetrics({ promClient, registry }, 'thumbs', () => 1);
    expect(await valueOf(registry, 'jobs_worker_jobs_in_flight', { queue: 'mail' })).toBe(5);
    expect(await valueOf(registry, 'jobs_worker_jobs_in_flight', { queue: 'thumbs' })).toBe(1);
    first.renewed(4);
    second.renewed(1);
    expect(await valueOf(registry, 'jobs_worker_lease_renewals_total', { queue: 'mail' })).toBe(5);
  });

  test('rate-limit waits: a counter of waits and a histogram of the time waited, per queue and kind', async () => {
    const registry = new Registry();
    const metrics = new WorkerMetrics({ promClient, registry }, 'fake', () => 0);
    metrics.rateLimited('webhook', 1_500);
    metrics.rateLimited('webhook', 500);
    metrics.rateLimited('email', 20);
    expect(await valueOf(registry, 'jobs_worker_rate_limit_waits_total', { queue: 'fake', kind: 'webhook' })).toBe(2);
    expect(await valueOf(registry, 'jobs_worker_rate_limit_waits_total', { queue: 'fake', kind: 'email' })).toBe(1);
    expect(await valueOf(registry, 'jobs_worker_rate_limit_wait_seconds_count', { queue: 'fake', kind: 'webhook' })).toBe(2);
    expect(await valueOf(registry, 'jobs_worker_rate_limit_wait_seconds_sum', { queue: 'fake', kind: 'webhook' })).toBeCloseTo(2, 6);
    expect(await valueOf(registry, 'jobs_worker_rate_limit_wait_seconds_bucket', { queue: 'fake', kind: 'email', le: 0.05 })).toBe(1);
    metrics.close();
  });
});
