import { isJobsError } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds } from '../src/index.ts';

const object = { type: 'object' } as const;
/** The old deploy knows `email`; the new one adds `invoice`. */
const oldKinds = defineKinds({ email: { schema: object } });
const newKinds = defineKinds({ email: { schema: object }, invoice: { schema: object } });

describe('a rolling deploy: a job of a kind the worker does not know', () => {
  test('is handed back without spending an attempt, and runs on the first worker that knows its kind', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds: newKinds });
    const old = createWorker({ redis, queue: queueName, kinds: oldKinds, handlers: { email: () => 'old' } });
    const failed: unknown[] = [];
    old.on('failed', ({ error }) => failed.push(error));
    const id = await producer.enqueue('invoice', {});
    await waitFor(async () => (await producer.stats()).handedOffTotal > 0 || undefined, { what: 'the old worker to hand the job back' });
    const waiting = await producer.getJob(id);
    expect([waiting?.status, waiting?.attempts]).toEqual(['delayed', 0]);
    // The new deploy's worker starts and the old one leaves, as a rolling deploy goes.
    const fresh = createWorker({ redis, queue: queueName, kinds: newKinds, handlers: { email: () => 'new', invoice: (_payload, ctx) => ({ attempt: ctx.attempt }) } });
    await fresh.ready();
    await old.close();
    // Skip the rest of its wait (up to 10 s with no worker for the kind alive when it was handed back).
    await producer.promote(id);
    expect(await producer.waitForResult(id, { timeoutMs: 15_000 })).toEqual({ attempt: 1 });
    expect(failed).toEqual([]);
    await Promise.all([fresh.close(), producer.close()]);
  });

  test('fails with JOBS_UNKNOWN_KIND once no worker has known the kind for the grace', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds: newKinds });
    const old = createWorker({ redis, queue: queueName, kinds: oldKinds, unknownKindGraceMs: 200, handlers: { email: () => 'old' } });
    const failed: unknown[] = [];
    old.on('failed', ({ error }) => failed.push(error));
    const id = await producer.enqueue('invoice', {});
    const error = await producer.waitForResult(id, { timeoutMs: 15_000 }).catch((e: unknown) => e);
    expect(isJobsError(error, 'JOBS_JOB_FAILED')).toBe(true);
    const job = await producer.getJob(id);
    expect(job?.error?.code).toBe('JOBS_UNKNOWN_KIND');
    expect((await producer.stats()).handedOffTotal).toBe(1);
    await waitFor(() => failed.length > 0 || undefined, { what: 'the failed event' });
    expect(isJobsError(failed[0], 'JOBS_UNKNOWN_KIND')).toBe(true);
    await Promise.all([old.close(), producer.close()]);
  });

  test('with unknownKindGraceMs 0 it fails at once, as a job no worker can run; a bad grace is refused', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds: newKinds });
    const old = createWorker({ redis, queue: queueName, kinds: oldKinds, unknownKindGraceMs: 0, handlers: { email: () => 'old' } });
    const id = await producer.enqueue('invoice', {});
    await producer.waitForResult(id, { timeoutMs: 10_000 }).catch(() => undefined);
    expect((await producer.getJob(id))?.status).toBe('failed');
    expect((await producer.stats()).handedOffTotal).toBe(0);
    for (const unknownKindGraceMs of [-1, 1.5, 604_800_001]) {
      expect(() => createWorker({ redis, queue: queueName, kinds: oldKinds, unknownKindGraceMs, handlers: { email: () => 'old' } })).toThrow(/unknownKindGraceMs/);
    }
    await Promise.all([old.close(), producer.close()]);
  });
});
