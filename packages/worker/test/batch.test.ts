import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds, isJobsError, type BatchHandlerEntry, type PayloadTypesOf, type WorkerOptions } from '../src/index.ts';
import { startChildWorker } from './child-worker.ts';

const kinds = defineKinds({
  row: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false }, backoff: { type: 'fixed', delayMs: 0 } },
  // The child worker's kind (test/fixtures/worker-process.mjs).
  slow: { schema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
  timed: { schema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] }, timeoutMs: 200, maxAttempts: 1 },
});
type Payloads = PayloadTypesOf<typeof kinds>;
type RowBatch = BatchHandlerEntry<Payloads['row'], 'row'>;

/** Now on the Redis clock (ms). */
async function redisNow(redis: TestRedis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** A promise with its resolve, for a batch the test lets finish when it likes. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** A worker whose `row` kind runs in batches with `row` (the other kinds, one at a time, are not enqueued). */
function batchWorker(redis: TestRedis, queue: string, row: RowBatch, options: Partial<WorkerOptions<Payloads>> = {}) {
  return createWorker({ redis, queue, kinds, concurrency: 10, handlers: { row, slow: ({ ms }) => ms, timed: ({ ms }) => ms }, ...options });
}

/** Enqueues `row` jobs n = 0..count-1 in one call; their ids in that order. */
async function enqueueRows(producer: ReturnType<typeof createProducer<Payloads>>, count: number, from = 0): Promise<string[]> {
  const results = await producer.enqueueMany(Array.from({ length: count }, (_, i) => ({ kind: 'row' as const, payload: { n: from + i } })));
  return results.map((result) => result.id);
}

describe('batch kinds', () => {
  test('a batch of exactly size jobs runs in one handler call, and each job completes with its own result', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const ids = await enqueueRows(producer, 4);
    const calls: string[][] = [];
    const worker = batchWorker(redis, queueName, {
      // A minute's wait: only reaching the size can run it within the test.
      batch: { size: 4, maxWaitMs: 60_000 },
      handler: (jobs) => {
        calls.push(jobs.map((job) => job.id));
        return jobs.map((job) => ({ row: job.payload.n, attempt: job.attempt }));
      },
    });
    const results = await Promise.all(ids.map((id) => producer.waitForResult(id)));
    expect(results).toEqual([0, 1, 2, 3].map((n) => ({ row: n, attempt: 1 })));
    expect(calls).toHaveLength(1);
    expect([...(calls[0] ?? [])].sort()).toEqual([...ids].sort());
    await Promise.all([worker.close(), producer.close()]);
  });

  test('2,000 jobs in batches of at most 50 at concurrency 100 are each completed exactly once, with their own results', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const runs = new Map<string, number>();
    const sizes: number[] = [];
    const worker = batchWorker(
      redis,
      queueName,
      {
        batch: { size: 50, maxWaitMs: 20 },
        handler: async (jobs) => {
          sizes.push(jobs.length);
          for (const job of jobs) runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
          return jobs.map((job) => job.payload.n * 2);
        },
      },
      { concurrency: 100, completedHistory: 5_000 },
    );
    const ids: string[] = [];
    for (let chunk = 0; chunk < 4; chunk += 1) ids.push(...(await enqueueRows(producer, 500, chunk * 500)));
    const results = await Promise.all(ids.map((id) => producer.waitForResult(id, { timeoutMs: 30_000 })));
    expect(results).toEqual(ids.map((_, n) => n * 2));
    expect(runs.size).toBe(2_000);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(50);
    // Gathered, not run one by one: most jobs ran in full batches.
    expect(sizes.filter((size) => size === 50).length * 50).toBeGreaterThan(1_000);
    await Promise.all([worker.close(), producer.close()]);
  });

  test('maxWaitMs runs a partial batch: 3 jobs of a batch of 10 run together, 200 ms or more after the first was claimed', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const ids = await enqueueRows(producer, 3);
    const calls: { ids: string[]; atMs: number }[] = [];
    const worker = batchWorker(redis, queueName, {
      batch: { size: 10, maxWaitMs: 200 },
      handler: async (jobs) => {
        calls.push({ ids: jobs.map((job) => job.id), atMs: await redisNow(redis) });
      },
    });
    await Promise.all(ids.map((id) => producer.waitForResult(id)));
    expect(calls).toHaveLength(1);
    expect([...(calls[0]?.ids ?? [])].sort()).toEqual([...ids].sort());
    const claimed = await Promise.all(ids.map(async (id) => (await producer.getJob(id))?.claimedAtMs ?? Number.POSITIVE_INFINITY));
    expect((calls[0]?.atMs ?? 0) - Math.min(...claimed)).toBeGreaterThanOrEqual(200);
    await Promise.all([worker.close(), producer.close()]);
  });

  test('an Error in the results fails only its job: it is retried alone, and the others complete on their first attempt', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const ids = await enqueueRows(producer, 3);
    const calls: string[][] = [];
    const worker = batchWorker(redis, queueName, {
      batch: { size: 3, maxWaitMs: 100 },
      handler: (jobs) => {
        calls.push(jobs.map((job) => job.id));
        return jobs.map((job) => (job.payload.n === 1 && job.attempt === 1 ? new Error('row 1 rejected') : { row: job.payload.n }));
      },
    });
    const retrying: string[] = [];
    worker.on('retrying', ({ job, error }) => retrying.push(`${job.id}: ${(error as Error).message}`));
    const results = await Promise.all(ids.map((id) => producer.waitForResult(id)));
    expect(results).toEqual([{ row: 0 }, { row: 1 }, { row: 2 }]);
    expect(retrying).toEqual([`${ids[1]}: row 1 rejected`]);
    const jobs = await Promise.all(ids.map((id) => producer.getJob(id)));
    expect(jobs.map((job) => job?.attempts)).toEqual([1, 2, 1]);
    expect(calls.slice(1)).toEqual([[ids[1]]]);
    await Promise.all([worker.close(), producer.close()]);
  });

  test('a throw fails every job of the batch, and each is retried with its own attempts', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const ids = await enqueueRows(producer, 3);
    let calls = 0;
    const worker = batchWorker(redis, queueName, {
      batch: { size: 3, maxWaitMs: 50 },
      handler: (jobs) => {
        calls += 1;
        if (calls === 1) throw new Error('bulk insert failed');
        return jobs.map((job) => ({ row: job.payload.n, attempt: job.attempt }));
      },
    });
    const retrying: string[] = [];
    worker.on('retrying', ({ job, error }) => retrying.push(`${job.id}: ${(error as Error).message}`));
    const results = await Promise.all(ids.map((id) => producer.waitForResult(id)));
    expect(results).toEqual([0, 1, 2].map((n) => ({ row: n, attempt: 2 })));
    expect(retrying.sort()).toEqual(ids.map((id) => `${id}: bulk insert failed`).sort());
    await Promise.all([worker.close(), producer.close()]);
  });

  test('leases are renewed while a batch runs five times longer than the visibility timeout: no job is reclaimed', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const ids = await enqueueRows(producer, 3);
    const finish = deferred();
    let startedAt = 0;
    let calls = 0;
    const worker = batchWorker(
      redis,
      queueName,
      {
        batch: { size: 3, maxWaitMs: 60_000 },
        handler: async (jobs) => {
          calls += 1;
          startedAt = await redisNow(redis);
          await finish.promise;
          return jobs.map((job) => job.payload.n);
        },
      },
      // The worker sweeps for expired leases itself, every 50 ms.
      { visibilityMs: 300, reclaimIntervalMs: 50 },
    );
    const lost: string[] = [];
    worker.on('lost', ({ job }) => lost.push(job.id));
    await waitFor(async () => startedAt > 0 && (await redisNow(redis)) > startedAt + 1_500, { what: '1.5 s of a running batch' });
    finish.resolve();
    expect(await Promise.all(ids.map((id) => producer.waitForResult(id)))).toEqual([0, 1, 2]);
    const jobs = await Promise.all(ids.map((id) => producer.getJob(id)));
    expect(jobs.map((job) => [job?.attempts, job?.reclaimedAtMs])).toEqual([
      [1, undefined],
      [1, undefined],
      [1, undefined],
    ]);
    expect(lost).toEqual([]);
    expect(calls).toBe(1);
    await Promise.all([worker.close(), producer.close()]);
  });

  test('jobs waiting below minSize keep their leases too, and run once the batch reaches it', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const first = await enqueueRows(producer, 2);
    const calls: string[][] = [];
    const worker = batchWorker(redis, queueName, { batch: { size: 4, minSize: 4, maxWaitMs: 0 }, handler: (jobs) => void calls.push(jobs.map((job) => job.id)) }, { visibilityMs: 300, reclaimIntervalMs: 50 });
    const lost: string[] = [];
    worker.on('lost', ({ job }) => lost.push(job.id));
    // Both claimed and gathered, then held for five visibility timeouts.
    const claimedAt = await waitFor(async () => {
      const jobs = await Promise.all(first.map((id) => producer.getJob(id)));
      return jobs.every((job) => job?.status === 'processing') && Math.max(...jobs.map((job) => job?.claimedAtMs ?? 0));
    });
    await waitFor(async () => (await redisNow(redis)) > claimedAt + 1_500, { what: '1.5 s of gathering' });
    expect(calls).toEqual([]);
    const held = await Promise.all(first.map((id) => producer.getJob(id)));
    expect(held.map((job) => [job?.status, job?.attempts, job?.reclaimedAtMs])).toEqual([
      ['processing', 1, undefined],
      ['processing', 1, undefined],
    ]);
    const second = await enqueueRows(producer, 2, 2);
    await Promise.all([...first, ...second].map((id) => producer.waitForResult(id)));
    expect(calls.map((call) => [...call].sort())).toEqual([[...first, ...second].sort()]);
    expect(lost).toEqual([]);
    await Promise.all([worker.close(), producer.close()]);
  });

  test("the kind's timeoutMs counts from the batch's start, not the gathering, and aborts the batch: every job fails with its TimeoutError", async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const ids = (await producer.enqueueMany([0, 1].map(() => ({ kind: 'timed' as const, payload: { ms: 60_000 } })))).map((result) => result.id);
    const reasons: unknown[] = [];
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      concurrency: 4,
      handlers: {
        row: () => undefined,
        slow: () => undefined,
        // Gathered for 300 ms, longer than the kind's 200 ms timeout.
        timed: {
          batch: { size: 4, maxWaitMs: 300 },
          handler: (_jobs, { signal }) =>
            new Promise((_, reject) =>
              signal.addEventListener('abort', () => {
                reasons.push(signal.reason);
                reject(signal.reason as Error);
              }),
            ),
        },
      },
    });
    const failures = await Promise.all(ids.map((id) => producer.waitForResult(id).catch((error: unknown) => error)));
    for (const failure of failures) {
      expect(failure).toMatchObject({ code: 'JOBS_JOB_FAILED', lastError: expect.stringMatching(/^TimeoutError: a batch of 2 timed jobs did not finish within 200 ms/) });
    }
    // The batch ran (its wait did not count toward the timeout) and its own signal aborted.
    expect(reasons).toHaveLength(1);
    expect(isJobsError(reasons[0], 'JOBS_TIMEOUT')).toBe(true);
    await Promise.all([worker.close(), producer.close()]);
  });

  test('a close whose grace period ends mid-batch hands every job of the batch back to pending at once, its attempt not counted', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const ids = await enqueueRows(producer, 3);
    let started = false;
    const worker = batchWorker(redis, queueName, {
      batch: { size: 3, maxWaitMs: 60_000 },
      handler: (_jobs, { signal }) => {
        started = true;
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
      },
    }, { visibilityMs: 30_000 });
    await waitFor(() => started, { what: 'the batch to start' });
    await worker.close({ graceMs: 100 });
    const jobs = await Promise.all(ids.map((id) => producer.getJob(id)));
    expect(jobs.map((job) => [job?.status, job?.attempts])).toEqual([
      ['pending', 0],
      ['pending', 0],
      ['pending', 0],
    ]);
    await producer.close();
  });

  test("a SIGKILLed worker's batch is reclaimed whole once its leases run out, and every job runs again", async ({ redisUrl, redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const child = await startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, VISIBILITY_MS: '500', CONCURRENCY: '3', BATCH_SIZE: '3', BATCH_WAIT_MS: '60000' });
    const ids = (await producer.enqueueMany([0, 1, 2].map(() => ({ kind: 'slow' as const, payload: { ms: 60_000 } })))).map((result) => result.id);
    const line = await child.waitForOutput(/batch \S+/);
    expect(line.slice('batch '.length).split(',').sort()).toEqual([...ids].sort());
    child.process.kill('SIGKILL');
    await child.exited;
    const reruns: string[][] = [];
    const survivor = createWorker({
      redis,
      queue: queueName,
      kinds,
      visibilityMs: 500,
      reclaimIntervalMs: 100,
      concurrency: 3,
      handlers: {
        row: () => undefined,
        timed: () => undefined,
        slow: { batch: { size: 3, maxWaitMs: 50 }, handler: (jobs) => (reruns.push(jobs.map((job) => job.id)), jobs.map((job) => ({ rerun: job.payload.ms }))) },
      },
    });
    const results = await Promise.all(ids.map((id) => producer.waitForResult(id, { timeoutMs: 15_000 })));
    expect(results).toEqual(ids.map(() => ({ rerun: 60_000 })));
    const jobs = await Promise.all(ids.map((id) => producer.getJob(id)));
    expect(jobs.every((job) => job?.attempts === 2 && job.reclaimedAtMs !== undefined)).toBe(true);
    expect(reruns.flat().sort()).toEqual([...ids].sort());
    await Promise.all([survivor.close(), producer.close()]);
  });
});
