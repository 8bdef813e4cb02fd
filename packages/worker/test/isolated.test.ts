import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, isJobsError, PermanentError, RateLimitedError, type JobsError } from '../src/index.ts';
import { capturingLogger, HANDLERS, isolatedKinds as kinds, processAlive, type LoggedLine } from './isolated-harness.ts';

const isolations = ['thread', 'process'] as const;

/** The child that started job `id` at `attempt`, as it logged it. */
function childOf(lines: LoggedLine[], id: string, attempt: number): { pid: number; threadId: number } | undefined {
  const line = lines.find((entry) => entry.message === 'isolated job started' && entry.fields.jobId === id && entry.fields.attempt === attempt);
  return line === undefined ? undefined : { pid: line.fields.pid as number, threadId: line.fields.threadId as number };
}

describe.each(isolations)('isolated handlers (%s)', (isolate) => {
  test('a handler that spins the CPU for five leases keeps its lease: it completes on attempt 1 with no reclaim while sweeps run', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds, eventLog: true });
    // Its own reclaim sweep runs every 100 ms: a lease left to expire would be reclaimed at once.
    const worker = createWorker({ redis, queue: queueName, kinds, visibilityMs: 600, reclaimIntervalMs: 100, eventLog: true, handlers: { work: { isolate, module: HANDLERS }, timed: { isolate, module: HANDLERS } } });
    const id = await producer.enqueue('work', { do: 'spin', ms: 3_000 });
    const result = await producer.waitForResult(id, { timeoutMs: 30_000 });
    expect(result).toMatchObject({ turns: true, attempt: 1 });
    // Ran away from the worker: another process, or another thread.
    if (isolate === 'process') expect((result as { pid: number }).pid).not.toBe(process.pid);
    else expect((result as { threadId: number }).threadId).not.toBe(0);
    const job = await producer.getJob(id);
    expect(job).toMatchObject({ attempts: 1, reclaimedAtMs: undefined });
    expect((await producer.timeline(id))?.events.map((event) => event.event)).toEqual(['enqueued', 'claimed', 'completed']);
    await Promise.all([worker.close(), producer.close()]);
  });

  for (const what of ['hang', 'spin-forever']) {
  test(`a handler that does not stop (${what}) is ended at its timeout: retried, failed with JOBS_TIMEOUT, and the next job runs on a fresh child`, async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const { logger, lines, withMessage } = capturingLogger();
    const worker = createWorker({ redis, queue: queueName, kinds, logger, handlers: { work: { isolate, module: HANDLERS }, timed: { isolate, module: HANDLERS, pool: 1, graceMs: 100 } } });
    const retried: unknown[] = [];
    worker.on('retrying', ({ error }) => retried.push(error));
    const id = await producer.enqueue('timed', { do: what });
    await expect(producer.waitForResult(id, { timeoutMs: 30_000 })).rejects.toMatchObject({ code: 'JOBS_JOB_FAILED', lastError: expect.stringContaining('TimeoutError: ') as unknown });
    expect(retried).toHaveLength(1);
    expect(isJobsError(retried[0], 'JOBS_TIMEOUT')).toBe(true);
    const first = childOf(lines, id, 1);
    const second = childOf(lines, id, 2);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    const next = await producer.enqueue('timed', { do: 'echo' });
    const result = (await producer.waitForResult(next, { timeoutMs: 30_000 })) as { pid: number; threadId: number };
    // Each of the two attempts' children was ended, and the next job ran on a third.
    const ended = withMessage('an isolated handler child ended');
    for (const child of [first, second]) {
      const id = isolate === 'process' ? child?.pid : child?.threadId;
      expect(ended.some((line) => (isolate === 'process' ? line.fields.pid : line.fields.threadId) === id)).toBe(true);
      if (isolate === 'process') expect(processAlive(child?.pid as number)).toBe(false);
    }
    const key = isolate === 'process' ? 'pid' : 'threadId';
    expect(new Set([first?.[key], second?.[key], result[key]]).size).toBe(3);
    expect(withMessage('an aborted isolated handler did not stop within its grace period: its child is ended')).toHaveLength(2);
    await Promise.all([worker.close(), producer.close()]);
  });
  }

  const crashes = [
    { what: 'exit', says: 'exit code 3' },
    { what: 'uncaught', says: 'uncaught Error: async boom' },
    { what: 'oom', says: 'out of memory' },
    ...(isolate === 'process' ? [{ what: 'kill-self', says: 'killed by SIGKILL' }] : []),
  ];
  for (const { what, says } of crashes) {
  test(`a child that crashes (${what}) fails the attempt with JOBS_HANDLER_CRASHED (${says}); the retry completes on a new child and the worker lives on`, async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = createWorker({ redis, queue: queueName, kinds, handlers: { work: { isolate, module: HANDLERS, memoryMb: 32, pool: 1 }, timed: { isolate, module: HANDLERS } } });
    const retried: JobsError[] = [];
    worker.on('retrying', ({ error }) => retried.push(error as JobsError));
    const id = await producer.enqueue('work', { do: what });
    expect(await producer.waitForResult(id, { timeoutMs: 60_000 })).toEqual({ attempt: 2 });
    expect(retried).toHaveLength(1);
    expect(isJobsError(retried[0], 'JOBS_HANDLER_CRASHED')).toBe(true);
    expect(retried[0]?.message).toContain(says);
    expect(retried[0]?.message).toContain(id);
    expect((await producer.getJob(id))?.attempts).toBe(2);
    await Promise.all([worker.close(), producer.close()]);
  });
  }

  test("errors keep their meaning across: a PermanentError fails at once with its cause, a RateLimitedError holds the kind back, another error keeps its class, code and fields", async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = createWorker({ redis, queue: queueName, kinds, concurrency: 3, handlers: { work: { isolate, module: HANDLERS }, timed: { isolate, module: HANDLERS } } });
    const failed: unknown[] = [];
    const retried: unknown[] = [];
    const limited: { error: unknown; untilMs: number }[] = [];
    worker.on('failed', ({ error }) => failed.push(error));
    worker.on('retrying', ({ error }) => retried.push(error));
    worker.on('rateLimited', (event) => limited.push(event));
    const permanent = await producer.enqueue('work', { do: 'permanent', image: 'cat.png' });
    await expect(producer.waitForResult(permanent, { timeoutMs: 30_000 })).rejects.toMatchObject({ lastError: 'PermanentError: no such image: cat.png' });
    expect(failed[0]).toBeInstanceOf(PermanentError);
    expect(failed[0]).toMatchObject({ code: 'JOBS_PERMANENT', cause: { name: 'TypeError', message: 'inner cause' } });
    expect((failed[0] as Error).stack).toContain('handlers.mjs');
    expect((await producer.getJob(permanent))?.attempts).toBe(1);

    const custom = await producer.enqueue('work', { do: 'custom-error' });
    await waitFor(() => retried.length > 0, { what: 'a retry of the custom error' });
    expect(retried[0]).toBeInstanceOf(RangeError);
    expect(retried[0]).toMatchObject({ message: 'width out of range', code: 'E_WIDTH', width: 9000 });
    await producer.cancel(custom).catch(() => undefined);

    await producer.enqueue('work', { do: 'rate-limited' });
    await waitFor(() => limited.length > 0, { what: 'a rateLimited event' });
    expect(limited[0]?.error).toBeInstanceOf(RateLimitedError);
    expect(limited[0]?.error).toMatchObject({ retryAfterMs: 60_000, message: 'the image service pushed back' });
    await Promise.all([worker.close(), producer.close()]);
  });

  test("the child's ctx reaches the job's real one: its values, progress, log lines and logger, extendLease (a bad value refused, typed), children()", async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const { logger, withMessage } = capturingLogger();
    const worker = createWorker({ redis, queue: queueName, kinds, logger, handlers: { work: { isolate, module: HANDLERS }, timed: { isolate, module: HANDLERS } } });
    const flow = await producer.enqueueFlow({ kind: 'work', payload: { do: 'ctx' }, children: [{ kind: 'work', payload: { do: 'echo' } }] });
    const child = flow.children[0]?.id as string;
    const result = await producer.waitForResult(flow.id, { timeoutMs: 30_000 });
    expect(result).toMatchObject({
      refused: { code: 'JOBS_INVALID_ARGUMENT', isJobsError: true },
      values: { id: flow.id, kind: 'work', attempt: 1, maxAttempts: 3, enqueued: 'number' },
      children: { [child]: { kind: 'work', status: 'completed', result: { payload: { do: 'echo' }, attempt: 1 } } },
    });
    const job = await producer.getJob(flow.id);
    expect(job?.progress).toEqual({ step: 1 });
    expect((await producer.logs(flow.id))?.lines.map((line) => line.line)).toEqual(["resized { width: 64 } to 32"]);
    expect(withMessage('slow encoder')[0]?.fields).toMatchObject({ stage: 'encode', jobId: flow.id, kind: 'work', attempt: 1 });
    await Promise.all([worker.close(), producer.close()]);
  });

  test('the child checkpoints, snoozes and is cancelled as an in-process handler is', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const { logger, withMessage } = capturingLogger();
    const worker = createWorker({ redis, queue: queueName, kinds, logger, handlers: { work: { isolate, module: HANDLERS }, timed: { isolate, module: HANDLERS } } });
    const id = await producer.enqueue('work', { do: 'resume' });
    expect(await producer.waitForResult(id, { timeoutMs: 30_000 })).toEqual({ saved: { done: 1 }, attempt: 1 });
    expect((await producer.stats()).snoozedTotal).toBe(1);
    const running = await producer.enqueue('work', { do: 'wait-abort' });
    await waitFor(() => withMessage('isolated job started').some((line) => line.fields.jobId === running) || undefined, { what: 'the job to start in its child', timeoutMs: 30_000 });
    expect(await producer.cancel(running)).toEqual({ cancelled: true, wasRunning: true });
    const aborted = await waitFor(() => withMessage('isolated job aborted')[0], { what: 'the child to hear the cancel', timeoutMs: 30_000 });
    expect(aborted.fields).toMatchObject({ code: 'JOBS_CANCELLED', isError: true });
    expect((await producer.getJob(running))?.status).toBe('cancelled');
    await Promise.all([worker.close(), producer.close()]);
  });

  test("a stopped attempt aborts the child's signal with a reason of the same code (JOBS_TIMEOUT); a child that then settles within its grace period is kept", async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const { logger, withMessage } = capturingLogger();
    const worker = createWorker({ redis, queue: queueName, kinds, logger, handlers: { work: { isolate, module: HANDLERS }, timed: { isolate, module: HANDLERS, pool: 1, graceMs: 30_000 } } });
    const id = await producer.enqueue('timed', { do: 'wait-abort' });
    await expect(producer.waitForResult(id, { timeoutMs: 30_000 })).rejects.toMatchObject({ lastError: expect.stringContaining('TimeoutError: ') as unknown });
    const aborted = await waitFor(() => (withMessage('isolated job aborted').length === 2 ? withMessage('isolated job aborted') : undefined), { what: 'both attempts heard the abort' });
    expect(aborted[0]?.fields).toMatchObject({ name: 'TimeoutError', code: 'JOBS_TIMEOUT', timeoutMs: 400, isTimeout: true, isError: true });
    const next = await producer.enqueue('timed', { do: 'echo' });
    await producer.waitForResult(next, { timeoutMs: 30_000 });
    // One child ran all three: those that stopped were not ended.
    expect(withMessage('an isolated handler child ended')).toEqual([]);
    const started = withMessage('isolated job started').map((line) => (isolate === 'process' ? line.fields.pid : line.fields.threadId));
    expect(new Set(started).size).toBe(1);
    await Promise.all([worker.close(), producer.close()]);
    // Closing the worker ended it.
    expect(withMessage('an isolated handler child ended')).toHaveLength(1);
  });

  test('a module that does not load (missing, or without a handler) fails the attempt with a clear error and an error event, without starting a child per job', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const { logger, withMessage } = capturingLogger();
    const missing = new URL('./fixtures/isolate/missing.mjs', import.meta.url);
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      logger,
      concurrency: 4,
      handlers: { work: { isolate, module: missing }, timed: { isolate, module: new URL('./fixtures/isolate/no-handler.mjs', import.meta.url) } },
    });
    const errors: unknown[] = [];
    worker.on('error', (error) => errors.push(error));
    const lost = await producer.enqueueMany([1, 2, 3].map(() => ({ kind: 'work' as const, payload: { do: 'echo' }, options: { maxAttempts: 1 } })));
    for (const { id } of lost) {
      await expect(producer.waitForResult(id, { timeoutMs: 30_000 })).rejects.toMatchObject({ lastError: expect.stringContaining(`invalid handlers.work.module: ${missing.href} could not be loaded in a ${isolate}`) as unknown });
    }
    const bare = await producer.enqueue('timed', { do: 'echo' }, { maxAttempts: 1 });
    await expect(producer.waitForResult(bare, { timeoutMs: 30_000 })).rejects.toMatchObject({ lastError: expect.stringContaining('no default export or export named "handler" that is a function (it exports: notAHandler)') as unknown });
    expect(errors.some((error) => isJobsError(error, 'JOBS_INVALID_ARGUMENT') && error.field === 'handlers.work.module')).toBe(true);
    expect(errors.some((error) => isJobsError(error, 'JOBS_INVALID_ARGUMENT') && error.field === 'handlers.timed.module')).toBe(true);
    // At most one child per job tried the module, never a loop of them.
    expect(withMessage('an isolated handler child ended').length).toBeLessThanOrEqual(4);
    await Promise.all([worker.close(), producer.close()]);
  });
});
