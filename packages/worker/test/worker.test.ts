import { Queue } from '@jobs/core';
import { createProducer } from '@jobs/producer';
import { openRedis, redisTest as test, waitFor, within, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, isJobsError, PermanentError, type HandlerMap, type Logger, type PayloadTypesOf, type Worker, type WorkerOptions } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

type Payloads = PayloadTypesOf<typeof kinds>;

function startWorker(redis: TestRedis, queue: string, options: Partial<WorkerOptions<Payloads>> = {}): Worker<Payloads> {
  return createWorker({ redis, queue, kinds, handlers: okHandlers, ...options });
}

/** A logger that keeps each line as text, for a failure message that says what the worker did last. */
function recordingLogger(lines: string[], prefix: string): Logger {
  const record = (level: string) => (fields: object, message?: string) => {
    lines.push(`${prefix} ${level} ${message ?? ''} ${JSON.stringify(fields)}`);
  };
  return { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}

describe('worker', () => {
  test('a 4-kind handler map processes 10,000 jobs at concurrency 32, each completed exactly once', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const runs = new Map<string, number>();
    const count = (id: string): void => {
      runs.set(id, (runs.get(id) ?? 0) + 1);
    };
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      concurrency: 32,
      completedHistory: 20_000,
      handlers: {
        email: async (payload, { id }) => (count(id), { sentTo: payload.recipient }),
        webhook: async (payload, { id }) => (count(id), { posted: payload.url }),
        thumbnail: async (payload, { id }) => (count(id), { thumb: `${payload.image}@${payload.width}` }),
        invoice: async (payload, { id }) => (count(id), { charged: payload.cents }),
      },
    });
    const ids: string[] = [];
    for (let batch = 0; batch < 10; batch += 1) {
      const results = await producer.enqueueMany(
        Array.from({ length: 1_000 }, (_, i) => {
          const n = batch * 1_000 + i;
          switch (n % 4) {
            case 0:
              return { kind: 'email' as const, payload: { recipient: `u${n}@example.com`, n } };
            case 1:
              return { kind: 'webhook' as const, payload: { url: `https://example.com/${n}`, n } };
            case 2:
              return { kind: 'thumbnail' as const, payload: { image: `${n}.png`, width: 64 } };
            default:
              return { kind: 'invoice' as const, payload: { customerId: `cus_${n}`, cents: n + 1, n } };
          }
        }),
      );
      ids.push(...results.map((r) => r.id));
    }
    await waitFor(async () => (await producer.stats()).completedTotal === 10_000, { timeoutMs: 120_000, intervalMs: 100, what: '10,000 completions' });
    expect(runs.size).toBe(10_000);
    expect([...runs.values()].every((times) => times === 1)).toBe(true);
    expect(await producer.stats()).toMatchObject({ completedTotal: 10_000, failedTotal: 0, retriedTotal: 0, pendingDepth: 0, processingDepth: 0 });
    expect(await producer.waitForResult(ids[1] as string)).toEqual({ posted: 'https://example.com/1' });
    expect((await producer.getJob(ids[3] as string))?.result).toEqual({ charged: 4 });
    await worker.close();
    await producer.close();
  }, 120_000);

  test('never runs more than `concurrency` jobs at once, though claims ride on completion batches', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    let running = 0;
    let most = 0;
    let done = 0;
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      concurrency: 8,
      handlers: {
        ...okHandlers,
        // Mixed: instant, next-tick and timer handlers finish in every order.
        email: async ({ n }) => {
          running += 1;
          most = Math.max(most, running);
          if ((n ?? 0) % 3 === 1) await Promise.resolve();
          if ((n ?? 0) % 3 === 2) await new Promise((resolve) => setTimeout(resolve, 1));
          running -= 1;
          done += 1;
          return null;
        },
      },
    });
    await producer.enqueueMany(Array.from({ length: 2_000 }, (_, n) => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', n } })));
    await waitFor(() => done === 2_000, { timeoutMs: 60_000, what: '2,000 jobs run' });
    // The bound holds, and the worker did run jobs side by side (the bound was in play).
    expect(most).toBeLessThanOrEqual(8);
    expect(most).toBeGreaterThan(1);
    await waitFor(async () => (await producer.stats()).completedTotal === 2_000, { what: '2,000 completions' });
    expect(await producer.stats()).toMatchObject({ pendingDepth: 0, processingDepth: 0 });
    await worker.close();
    await producer.close();
  });

  test('outcomes: a returned value completes; a throw retries after backoff, then fails; PermanentError fails at once', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const events: string[] = [];
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      concurrency: 4,
      handlers: {
        ...okHandlers,
        webhook: ({ url }) => {
          throw new Error(`HTTP 503 from ${url}`);
        },
        invoice: ({ customerId }) => {
          throw new PermanentError(`no customer ${customerId}`);
        },
      },
    });
    worker.on('completed', ({ job }) => events.push(`completed ${job.kind}`));
    worker.on('retrying', ({ job }) => events.push(`retrying ${job.kind} ${job.attempts}`));
    worker.on('failed', ({ job }) => events.push(`failed ${job.kind} ${job.attempts}`));
    const mail = await producer.enqueue('email', { recipient: 'a@example.com' });
    const hook = await producer.enqueue('webhook', { url: 'https://example.com/down' });
    const bill = await producer.enqueue('invoice', { customerId: 'cus_x', cents: 100 });
    expect(await producer.waitForResult(mail)).toEqual({ sentTo: 'a@example.com' });
    const hookError = await producer.waitForResult(hook).catch((e: unknown) => e);
    expect(hookError).toMatchObject({ code: 'JOBS_JOB_FAILED', lastError: 'HTTP 503 from https://example.com/down' });
    const billError = await producer.waitForResult(bill).catch((e: unknown) => e);
    expect(billError).toMatchObject({ code: 'JOBS_JOB_FAILED', lastError: 'PermanentError: no customer cus_x' });
    expect((await producer.getJob(bill))?.attempts).toBe(1);
    expect((await producer.getJob(hook))?.attempts).toBe(2);
    await waitFor(() => events.length === 4);
    expect(events.sort()).toEqual(['completed email', 'failed invoice 1', 'failed webhook 2', 'retrying webhook 1']);
    await worker.close();
    await producer.close();
  });

  test('a payload a non-validating client wrote is validated at claim and fails at once with the reason; an unknown kind is handed back for a worker that knows it', async ({ redis, queueName }) => {
    const worker = startWorker(redis, queueName);
    const failed: string[] = [];
    worker.on('failed', ({ job, error }) => failed.push(`${job.id}: ${(error as Error).message}`));
    const write = async (id: string, payload: string): Promise<void> => {
      await redis.hset(`queue:{${queueName}}:job:${id}`, { id, payload, status: 'pending', attempts: '0', enqueued_at_ms: String(Date.now()), claim_token: '' });
      await redis.lpush(`queue:{${queueName}}:pending`, id);
    };
    await write('badschema', '{"kind":"email","recipient":"not an address"}');
    await write('badkind', '{"kind":"fax","to":"123"}');
    await write('notjson', '{oops');
    await waitFor(async () => (await redis.llen(`queue:{${queueName}}:failed`)) === 2);
    await waitFor(async () => (await redis.hget(`queue:{${queueName}}:stats`, 'handed_off_total')) === '1');
    const reasons = Object.fromEntries(
      await Promise.all(['badschema', 'notjson'].map(async (id) => [id, await redis.hget(`queue:{${queueName}}:job:${id}`, 'last_error')])),
    );
    expect(reasons.badschema).toMatch(/invalid payload for kind "email": \/recipient must match format "email"/);
    expect(reasons.notjson).toMatch(/the payload is not JSON/);
    // A kind this worker does not know may be a newer deploy's: it waits for a worker that knows it.
    expect(await redis.hmget(`queue:{${queueName}}:job:badkind`, 'status', 'attempts')).toEqual(['delayed', '0']);
    expect(failed).toHaveLength(2);
    await worker.close();
  });

  test("a handler past its kind's timeoutMs is aborted and its attempt fails with a timeout error", async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    let sawAbort: unknown;
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      handlers: {
        ...okHandlers,
        thumbnail: (_payload, { signal }) =>
          new Promise((resolve) => {
            signal.addEventListener('abort', () => {
              sawAbort = signal.reason;
              resolve('too late');
            });
          }),
      },
    });
    const id = await producer.enqueue('thumbnail', { image: 'huge.tiff', width: 10 });
    const error = await producer.waitForResult(id, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'JOBS_JOB_FAILED', lastError: expect.stringMatching(/TimeoutError: job \w+ \(thumbnail\) did not finish within 200 ms/) });
    expect(isJobsError(sawAbort, 'JOBS_TIMEOUT')).toBe(true);
    await worker.close();
    await producer.close();
  });

  test('a worker whose job was reclaimed learns it (lost, signal aborted) and does not report a result', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const lost: string[] = [];
    let firstSignal: AbortSignal | undefined;
    let releaseFirst: () => void = () => undefined;
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      concurrency: 2,
      visibilityMs: 300,
      reclaimIntervalMs: 0,
      handlers: {
        ...okHandlers,
        email: async (_payload, { attempt, signal }) => {
          if (attempt === 1) {
            firstSignal = signal;
            await new Promise<void>((resolve) => {
              releaseFirst = resolve;
            });
            return 'from the first attempt';
          }
          return 'from the second attempt';
        },
      },
    });
    worker.on('lost', ({ job }) => lost.push(job.id));
    const id = await producer.enqueue('email', { recipient: 'a@example.com' });
    await waitFor(() => firstSignal);
    // Someone else reclaims it: its lease is expired by hand, then swept. The worker renews the
    // lease meanwhile, and on a loaded machine a renewal may land between the two: again, then.
    const core = new Queue({ redis, queue: queueName, kinds });
    await waitFor(async () => {
      await redis.zadd(`queue:{${queueName}}:leases`, 0, id);
      const { reclaimed } = await core.reclaimStuck();
      expect(reclaimed.filter((other) => other !== id)).toEqual([]);
      return reclaimed.includes(id);
    }, { what: 'the job reclaimed once its lease was expired by hand' });
    await waitFor(() => firstSignal?.aborted);
    expect(isJobsError(firstSignal?.reason, 'JOBS_LOST_CLAIM')).toBe(true);
    expect(await producer.waitForResult(id)).toBe('from the second attempt');
    releaseFirst();
    await waitFor(() => lost.length === 1);
    expect(lost).toEqual([id]);
    expect((await producer.getJob(id))?.result).toBe('from the second attempt');
    await Promise.all([worker.close(), producer.close(), core.close()]);
  });

  test('a 3 s job with a 500 ms visibility timeout is never reclaimed while its worker lives', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      visibilityMs: 500,
      handlers: {
        ...okHandlers,
        invoice: async ({ cents }, { signal }) => {
          await new Promise((resolve) => setTimeout(resolve, 3_000));
          return { charged: cents, aborted: signal.aborted };
        },
      },
    });
    // Someone sweeps for expired leases every 50 ms the whole time.
    const sweeper = new Queue({ redis, queue: queueName, kinds, visibilityMs: 500 });
    let sweeping = true;
    // Each sweep between two readings of the Redis clock: it ran no sooner than the first, no later than the second.
    const sweeps: { after: number; before: number }[] = [];
    const redisNow = async (): Promise<number> => {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    };
    const sweepLoop = (async () => {
      while (sweeping) {
        const after = await redisNow();
        expect((await sweeper.reclaimStuck()).reclaimed).toEqual([]);
        sweeps.push({ after, before: await redisNow() });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const id = await producer.enqueue('invoice', { customerId: 'cus_slow', cents: 300 });
    expect(await producer.waitForResult(id, { timeoutMs: 15_000 })).toEqual({ charged: 300, aborted: false });
    sweeping = false;
    await sweepLoop;
    const job = await producer.getJob(id);
    // Sweeps ran while the job did, long after a lease that was not renewed would have ended.
    const claimedAt = job?.claimedAtMs ?? Number.NaN;
    const completedAt = job?.completedAtMs ?? Number.NaN;
    expect(sweeps.filter(({ after, before }) => after >= claimedAt + 1_000 && before <= completedAt).length).toBeGreaterThan(0);
    expect(job?.attempts).toBe(1);
    expect(job?.reclaimedAtMs).toBeUndefined();
    expect((await producer.stats()).reclaimedTotal).toBe(0);
    await Promise.all([worker.close(), sweeper.close(), producer.close()]);
  });

  test('close mid-flight: 100 running jobs, the finished ones complete, the rest go back to pending at once', { timeout: 60_000 }, async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    // Each step has its own deadline and says what the workers logged, so a slow run names its step.
    const log: string[] = [];
    const step = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> => within(promise, ms, () => `${what}: still pending after ${ms} ms; logged: ${log.slice(-12).join(' | ')}`);
    let started = 0;
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      concurrency: 100,
      logger: recordingLogger(log, 'first'),
      handlers: {
        ...okHandlers,
        email: async ({ n }, { signal }) => {
          started += 1;
          const ms = (n ?? 0) % 2 === 0 ? 50 : 60_000;
          await new Promise((resolve, reject) => {
            const timer = setTimeout(resolve, ms);
            signal.addEventListener('abort', () => {
              clearTimeout(timer);
              reject(signal.reason);
            });
          });
          return n;
        },
      },
    });
    await step(producer.enqueueMany(Array.from({ length: 100 }, (_, n) => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', n } }))), 5_000, 'enqueueMany');
    await waitFor(() => started === 100, { timeoutMs: 5_000, what: 'all 100 jobs started' });
    expect(worker.running).toBe(100);
    await step(worker.close({ graceMs: 500 }), 15_000, 'worker.close({ graceMs: 500 })');
    const stats = await step(producer.stats(), 15_000, 'stats after close');
    expect(stats).toMatchObject({ completedTotal: 50, pendingDepth: 50, processingDepth: 0, failedTotal: 0, retriedTotal: 0, releasedTotal: 50 });
    expect(await redis.zcount(`queue:{${queueName}}:leases`, '-inf', '(+inf')).toBe(0);
    const back = await redis.lrange(`queue:{${queueName}}:pending`, 0, -1);
    const attempts = await Promise.all(back.map((id) => redis.hget(`queue:{${queueName}}:job:${id}`, 'attempts')));
    expect(attempts.every((a) => a === '0')).toBe(true);
    // Another worker picks them up at once and finishes them: none was lost.
    const next = startWorker(redis, queueName, { concurrency: 50, logger: recordingLogger(log, 'next') });
    await waitFor(async () => (await producer.stats()).completedTotal === 100, { timeoutMs: 10_000, what: 'the 50 handed-back jobs completed by another worker' });
    // Nothing runs: its close does not wait out any grace period.
    await step(next.close({ graceMs: 10_000 }), 15_000, 'the second worker.close()');
    await step(producer.close(), 15_000, 'producer.close()');
    // Twice this test has hung on a cluster run and once the cause went unseen: say what went wrong
    // even when the workers recovered (a command that timed out, say).
    const errors = log.filter((line) => / (warn|error) /.test(line));
    if (errors.length > 0) process.stderr.write(`close mid-flight: the workers logged ${errors.length} warnings or errors:\n${errors.join('\n')}\n`);
  });

  test('a job claimed by a completion batch that answers after the grace period is handed back, not started', async ({ redis, redisUrl, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const [a, b, c] = await producer.enqueueMany([0, 1, 2].map((n) => ({ kind: 'email' as const, payload: { recipient: 'a@example.com', n } })));
    // The worker's own connection, whose commands the test can hold back, as a slow network would.
    const connection = openRedis(redisUrl);
    const held: (() => void)[] = [];
    let holding = false;
    type SendCommand = (command: { promise: Promise<unknown> }, ...rest: unknown[]) => unknown;
    const sending = connection as unknown as { sendCommand: SendCommand };
    const send = sending.sendCommand.bind(connection);
    sending.sendCommand = (command, ...rest) => {
      if (!holding) return send(command, ...rest);
      held.push(() => void send(command, ...rest));
      return command.promise;
    };
    const ran: number[] = [];
    let finishB: () => void = () => undefined;
    const worker = createWorker({
      redis: connection,
      queue: queueName,
      kinds,
      concurrency: 2,
      handlers: {
        ...okHandlers,
        email: async ({ n }, { signal }) => {
          ran.push(n ?? -1);
          if (n === 1) return new Promise<number>((resolve) => (finishB = () => resolve(1)));
          return new Promise<number>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
        },
      },
    });
    await waitFor(() => ran.length === 2, { what: 'jobs 0 and 1 running' });
    // Job 1's completion batch also claims job 2 (its slot passes on); it is held on its way.
    holding = true;
    finishB();
    await waitFor(() => held.length === 1, { what: 'the completion batch held' });
    const closing = worker.close({ graceMs: 100 });
    // The grace period ends with both jobs still running as far as the worker knows: it hands them back.
    await waitFor(() => held.length === 2, { what: 'the hand-back held behind the batch' });
    holding = false;
    for (const release of held.splice(0)) release();
    await within(closing, 5_000, () => 'worker.close() still pending 5 s after the held commands went out');
    expect(ran).toEqual([0, 1]);
    expect(await producer.stats()).toMatchObject({ completedTotal: 1, pendingDepth: 2, processingDepth: 0, releasedTotal: 2 });
    expect((await producer.getJob(b?.id as string))?.status).toBe('completed');
    for (const job of [a, c]) expect(await producer.getJob(job?.id as string)).toMatchObject({ status: 'pending', attempts: 0 });
    connection.disconnect();
    await producer.close();
  });

  test('ctx.extendLease renews the lease for the time asked, and a result too large to store fails the job for good', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    let leaseAfterExtend = 0;
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      maxResultBytes: 1_000,
      handlers: {
        ...okHandlers,
        email: async (_payload, { id, extendLease }) => {
          await extendLease(120_000);
          const [seconds] = await redis.time();
          leaseAfterExtend = Number(await redis.zscore(`queue:{${queueName}}:leases`, id)) - Number(seconds) * 1000;
          return 'ok';
        },
        webhook: () => 'x'.repeat(5_000),
      },
    });
    expect(await producer.waitForResult(await producer.enqueue('email', { recipient: 'a@example.com' }))).toBe('ok');
    expect(leaseAfterExtend).toBeGreaterThan(115_000);
    expect(leaseAfterExtend).toBeLessThanOrEqual(121_000);
    const big = await producer.enqueue('webhook', { url: 'https://example.com/' });
    const error = await producer.waitForResult(big).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'JOBS_JOB_FAILED', lastError: expect.stringMatching(/result cannot be stored: result is \d+ bytes of JSON, over the limit of 1000 bytes/) });
    expect((await producer.getJob(big))?.attempts).toBe(1);
    await worker.close();
    await producer.close();
  });

  test('structured logs go to the logger passed in, bound to the queue and the job', async ({ redis, queueName }) => {
    const lines: { level: string; fields: Record<string, unknown>; message: string | undefined }[] = [];
    const logger = Object.fromEntries(
      (['debug', 'info', 'warn', 'error'] as const).map((level) => [level, (fields: Record<string, unknown>, message?: string) => lines.push({ level, fields, message })]),
    ) as unknown as Logger;
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      logger,
      handlers: { ...okHandlers, email: (_payload, { log }) => (log.info({ step: 'sending' }, 'sending mail'), 'sent') },
    });
    const id = await producer.enqueue('email', { recipient: 'a@example.com' });
    await producer.waitForResult(id);
    await worker.close();
    expect(lines).toContainEqual({ level: 'info', fields: { queue: queueName, concurrency: 1 }, message: 'worker started' });
    expect(lines).toContainEqual({ level: 'info', fields: { queue: queueName, jobId: id, kind: 'email', attempt: 1, step: 'sending' }, message: 'sending mail' });
    expect(lines.at(-1)).toMatchObject({ level: 'info', message: 'worker closed' });
    await producer.close();
  });

  test('handler maps are checked against the kinds, at compile time and at start', ({ redis, queueName }) => {
    const typeOnly = (): void => {
      // @ts-expect-error: the invoice handler is missing
      createWorker({ redis, queue: queueName, kinds, handlers: { email: () => 1, webhook: () => 1, thumbnail: () => 1 } });
      createWorker({
        redis,
        queue: queueName,
        kinds,
        handlers: {
          ...okHandlers,
          // @ts-expect-error: the payload of email has no `url`
          email: (payload: { url: string }) => payload.url,
        },
      });
      createWorker({
        redis,
        queue: queueName,
        kinds,
        handlers: {
          ...okHandlers,
          // @ts-expect-error: not a kind of this queue
          fax: () => 1,
        },
      });
      createWorker({
        redis,
        queue: queueName,
        kinds,
        handlers: {
          ...okHandlers,
          // A handler sees its own payload type and its kind name.
          email: (payload, context) => {
            const recipient: string = payload.recipient;
            const kind: 'email' = context.kind;
            return { recipient, kind };
          },
        },
      });
    };
    expect(typeof typeOnly).toBe('function');
    const missing = { email: () => 1, webhook: () => 1, thumbnail: () => 1 } as unknown as HandlerMap<Payloads>;
    expect(() => createWorker({ redis, queue: queueName, kinds, handlers: missing })).toThrow(/handlers\.invoice.*no handler for kind "invoice"/);
    expect(() => startWorker(redis, queueName, { concurrency: 0 })).toThrow(/concurrency/);
  });
});
