import { Queue } from '@jobs/core';
import { redisTest as test, waitFor, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, isJobsError, type PayloadTypesOf } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

type Payloads = PayloadTypesOf<typeof kinds>;

class SmtpError extends Error {
  readonly code = 'SMTP_421';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SmtpError';
  }
}

describe("a failed job's attempts and logs, through the worker", () => {
  test('a handler that logs and throws a chained error, retried then dead-lettered: each attempt has its outcome, error, stack and worker id, and its lines are stored', async ({ redis, queueName }) => {
    const failed: string[] = [];
    const worker = createWorker<Payloads>({
      redis,
      queue: queueName,
      kinds,
      workerId: `trail-test:${queueName}`,
      handlers: {
        ...okHandlers,
        // webhook: maxAttempts 2, no backoff.
        webhook: async (payload, ctx) => {
          ctx.log('posting to', payload.url, { attempt: ctx.attempt });
          ctx.log('attempt %d of %d', ctx.attempt, ctx.maxAttempts);
          throw new SmtpError(`relay refused on attempt ${ctx.attempt}`, { cause: new Error('ECONNRESET') });
        },
      },
    });
    worker.on('failed', ({ job }) => failed.push(job.id));
    const queue = new Queue<Payloads>({ redis, queue: queueName, kinds });
    const { id } = { id: await queue.enqueue('webhook', { url: 'https://example.com/hook' }) };
    await waitFor(() => failed.includes(id), { what: 'the job dead-lettered' });

    const history = await queue.attempts(id);
    expect(history?.entries.map((entry) => [entry.attempt, entry.outcome, entry.workerId, entry.error?.code])).toEqual([
      [1, 'retried', `trail-test:${queueName}`, 'SMTP_421'],
      [2, 'failed', `trail-test:${queueName}`, 'SMTP_421'],
    ]);
    const last = history?.entries[1];
    expect(last?.error?.message).toBe('SmtpError: relay refused on attempt 2');
    expect(last?.error?.stack).toContain('SmtpError: relay refused on attempt 2');
    expect(last?.error?.cause?.message).toBe('ECONNRESET');
    expect(last?.durationMs).toBe((last?.endedAtMs as number) - (last?.claimedAtMs as number));
    expect((await queue.getJob(id))?.error).toEqual(last?.error);

    const logs = await queue.logs(id);
    expect(logs?.lines.map((line) => [line.attempt, line.line])).toEqual([
      [1, 'posting to https://example.com/hook { attempt: 1 }'],
      [1, 'attempt 1 of 2'],
      [2, 'posting to https://example.com/hook { attempt: 2 }'],
      [2, 'attempt 2 of 2'],
    ]);
    expect(logs?.trimmed).toBe(0);
    await within(worker.close(), 15_000, () => 'worker close');
    await queue.close();
  });

  test('lines logged after the claim was lost are refused: nothing of the lost attempt is stored after the loss', async ({ redis, queueName }) => {
    let release: () => void = () => {};
    let signal: AbortSignal | undefined;
    let logAfterLoss: ((line: string) => void) | undefined;
    const lost: string[] = [];
    const warnings: string[] = [];
    const record = () => () => {};
    const logger = { debug: record(), info: record(), error: record(), warn: (fields: object, message?: string) => warnings.push(`${message ?? ''} ${JSON.stringify(fields)}`) };
    const worker = createWorker<Payloads>({
      redis,
      queue: queueName,
      kinds,
      logger,
      concurrency: 1,
      reclaimIntervalMs: 0,
      // A short lease: its renewal, which finds the claim lost, comes about every second.
      visibilityMs: 3_000,
      handlers: {
        ...okHandlers,
        email: async (_payload, ctx) => {
          if (ctx.attempt === 1) {
            signal = ctx.signal;
            logAfterLoss = (line) => ctx.log(line);
            await new Promise<void>((resolve) => {
              release = resolve;
            });
            return 'late';
          }
          ctx.log('second attempt');
          return 'ok';
        },
      },
    });
    worker.on('lost', ({ job }) => lost.push(job.id));
    const queue = new Queue<Payloads>({ redis, queue: queueName, kinds });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    await waitFor(() => signal);
    await waitFor(async () => {
      await redis.zadd(queue.keys.leases, 0, id);
      return (await queue.reclaimStuck()).reclaimed.includes(id);
    }, { what: 'the job reclaimed once its lease was expired by hand' });
    await waitFor(() => signal?.aborted, { what: 'the first attempt told its claim was lost', timeoutMs: 30_000 });
    expect(isJobsError(signal?.reason, 'JOBS_LOST_CLAIM')).toBe(true);
    logAfterLoss?.('from the lost attempt');
    release();
    await waitFor(async () => (await queue.getJob(id))?.status === 'completed', { what: 'the second attempt completed' });
    await waitFor(() => lost.length === 1);
    await waitFor(() => warnings.some((line) => line.startsWith('log lines refused: the claim on the job was lost')), { what: 'the lost attempt told its lines were refused' });
    expect((await queue.logs(id))?.lines.map((line) => line.line)).toEqual(['second attempt']);
    await within(worker.close(), 15_000, () => 'worker close');
    await queue.close();
  });

  test('a handler that never logs leaves no log key: ctx.log costs nothing unused', async ({ redis, queueName }) => {
    const worker = createWorker<Payloads>({ redis, queue: queueName, kinds, handlers: okHandlers });
    const queue = new Queue<Payloads>({ redis, queue: queueName, kinds });
    const id = await queue.enqueue('email', { recipient: 'a@example.com' });
    await waitFor(async () => (await queue.getJob(id))?.status === 'completed');
    expect(await redis.exists(queue.keys.jobLogs(id), queue.keys.jobAttempts(id))).toBe(0);
    expect(await redis.hget(queue.keys.job(id), 'trail')).toBeNull();
    await within(worker.close(), 15_000, () => 'worker close');
    await queue.close();
  });
});
