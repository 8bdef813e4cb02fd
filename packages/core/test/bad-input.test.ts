import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { defineKinds, isJobsError, Queue, RedisScheduleStore, ScheduleRunner, Schedules, type ClaimedJob } from '../src/index.ts';
import { kinds, openQueue } from './fixtures.ts';

/** Runs `call` and returns the JobsError it threw (sync or async), or fails the test. */
async function jobsErrorOf(call: () => unknown): Promise<{ code: string; field: string | undefined; message: string }> {
  let error: unknown;
  try {
    await call();
  } catch (caught) {
    error = caught;
  }
  if (!isJobsError(error)) throw new Error(`expected a JobsError, got ${String(error)}`);
  return error;
}

const anyValue = (value: unknown): never => value as never;

describe('bad input matrix: every public call refuses bad arguments with a typed error', () => {
  test('Queue options', async ({ redis }) => {
    const cases: [unknown, string, string][] = [
      [{ redis: 42, queue: 'q', kinds }, 'JOBS_INVALID_ARGUMENT', 'redis'],
      [{ redis: 'http://x', queue: 'q', kinds }, 'JOBS_INVALID_ARGUMENT', 'redis'],
      [{ redis, queue: 5, kinds }, 'JOBS_INVALID_ARGUMENT', 'queue'],
      [{ redis, queue: 'q q', kinds }, 'JOBS_INVALID_ARGUMENT', 'queue'],
      [{ redis, queue: 'q', kinds: {} }, 'JOBS_INVALID_ARGUMENT', 'kinds'],
      [{ redis, queue: 'q', kinds, visibilityMs: Number.NaN }, 'JOBS_INVALID_ARGUMENT', 'options.visibilityMs'],
      [{ redis, queue: 'q', kinds, maxAttempts: -1 }, 'JOBS_INVALID_ARGUMENT', 'options.maxAttempts'],
      [{ redis, queue: 'q', kinds, completedHistory: 1.5 }, 'JOBS_INVALID_ARGUMENT', 'options.completedHistory'],
      [{ redis, queue: 'q', kinds, failedHistory: -1 }, 'JOBS_INVALID_ARGUMENT', 'options.failedHistory'],
      [{ redis, queue: 'q', kinds, failedHistory: 'all' }, 'JOBS_INVALID_ARGUMENT', 'options.failedHistory'],
      [{ redis, queue: 'q', kinds, failedHistory: Number.NEGATIVE_INFINITY }, 'JOBS_INVALID_ARGUMENT', 'options.failedHistory'],
      [{ redis, queue: 'q', kinds, failedTtlSeconds: -1 }, 'JOBS_INVALID_ARGUMENT', 'options.failedTtlSeconds'],
      [{ redis, queue: 'q', kinds, maxResultBytes: '1' }, 'JOBS_INVALID_ARGUMENT', 'options.maxResultBytes'],
      [{ redis, queue: 'q', kinds, events: 'yes' }, 'JOBS_INVALID_ARGUMENT', 'options.events'],
      [{ redis, queue: 'q', kinds, backoff: { type: 'fixed', delayMs: -1 } }, 'JOBS_INVALID_ARGUMENT', 'options.backoff.delayMs'],
      [{ redis, queue: 'q', kinds, commandTimeoutMs: 0 }, 'JOBS_INVALID_ARGUMENT', 'commandTimeoutMs'],
      [null, 'JOBS_INVALID_ARGUMENT', 'options'],
    ];
    for (const [options, code, field] of cases) {
      const error = await jobsErrorOf(() => new Queue(anyValue(options)));
      expect({ code: error.code, field: error.field }, JSON.stringify(options, (_k, v: unknown) => (typeof v === 'object' && v && 'status' in v ? '[client]' : v))).toEqual({ code, field });
    }
  });

  test('enqueue and enqueueMany', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const cases: [() => unknown, string, string | undefined][] = [
      [() => queue.enqueue('email', anyValue(null)), 'JOBS_VALIDATION', 'payload'],
      [() => queue.enqueue('email', anyValue([1, 2])), 'JOBS_VALIDATION', 'payload'],
      [() => queue.enqueue('email', anyValue('a@example.com')), 'JOBS_VALIDATION', 'payload'],
      [() => queue.enqueue(anyValue(7), anyValue({})), 'JOBS_UNKNOWN_KIND', 'kind'],
      [() => queue.enqueue(anyValue('__proto__'), anyValue({})), 'JOBS_UNKNOWN_KIND', 'kind'],
      [() => queue.enqueue('email', { recipient: 'a@example.com', subject: 'x'.repeat(300) }), 'JOBS_VALIDATION', 'payload'],
      [() => queue.enqueue('email', { recipient: 'a@example.com' }, anyValue('soon')), 'JOBS_INVALID_ARGUMENT', 'options'],
      [() => queue.enqueue('email', { recipient: 'a@example.com' }, { delayMs: anyValue('10') }), 'JOBS_INVALID_ARGUMENT', 'options.delayMs'],
      [() => queue.enqueue('email', { recipient: 'a@example.com' }, { delayMs: Number.POSITIVE_INFINITY }), 'JOBS_INVALID_ARGUMENT', 'options.delayMs'],
      [() => queue.enqueue('email', { recipient: 'a@example.com' }, { runAt: anyValue('tomorrow') }), 'JOBS_INVALID_ARGUMENT', 'options.runAt'],
      [() => queue.enqueue('email', { recipient: 'a@example.com' }, { runAt: new Date('invalid') }), 'JOBS_INVALID_ARGUMENT', 'options.runAt'],
      [() => queue.enqueue('email', { recipient: 'a@example.com' }, { maxAttempts: 1.5 }), 'JOBS_INVALID_ARGUMENT', 'options.maxAttempts'],
      [() => queue.enqueue('email', { recipient: 'a@example.com' }, { visibilityMs: 0 }), 'JOBS_INVALID_ARGUMENT', 'options.visibilityMs'],
      [() => queue.enqueue('email', { recipient: 'a@example.com' }, { idempotencyKey: anyValue(5) }), 'JOBS_INVALID_ARGUMENT', 'options.idempotencyKey'],
      [() => queue.enqueue('email', { recipient: 'a@example.com' }, { idempotencyKey: 'k', idempotencyTtlMs: -1 }), 'JOBS_INVALID_ARGUMENT', 'options.idempotencyTtlMs'],
      [() => queue.enqueueMany(anyValue('not an array')), 'JOBS_INVALID_ARGUMENT', 'jobs'],
      [() => queue.enqueueMany([anyValue(null)]), 'JOBS_INVALID_ARGUMENT', 'jobs[0]'],
      [() => queue.enqueueMany(Array.from({ length: 10_001 }, () => ({ kind: 'email' as const, payload: { recipient: 'a@example.com' } }))), 'JOBS_INVALID_ARGUMENT', 'jobs'],
    ];
    for (const [call, code, field] of cases) {
      const error = await jobsErrorOf(call);
      expect({ code: error.code, field: error.field }, call.toString()).toEqual({ code, field });
    }
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
    await queue.close();
  });

  test('claim, complete, fail, extend, reclaim, promote, cancel, retry, list, getJob, why, tidy', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { recipient: 'a@example.com' });
    const [job] = (await queue.claim()) as [ClaimedJob];
    const cases: [() => unknown, string, string][] = [
      [() => queue.claim({ max: 0 }), 'JOBS_INVALID_ARGUMENT', 'max'],
      [() => queue.claim({ max: Number.NaN }), 'JOBS_INVALID_ARGUMENT', 'max'],
      [() => queue.claim({ blockMs: -1 }), 'JOBS_INVALID_ARGUMENT', 'blockMs'],
      [() => queue.complete(job, () => 1), 'JOBS_NOT_SERIALIZABLE', 'result'],
      [() => queue.complete(job, { big: 1n }), 'JOBS_NOT_SERIALIZABLE', 'result/big'],
      [() => queue.completeAndClaim(job, 'x', { max: -1 }), 'JOBS_INVALID_ARGUMENT', 'max'],
      [() => queue.fail(job, 'x', { retryDelayMs: Number.NaN }), 'JOBS_INVALID_ARGUMENT', 'retryDelayMs'],
      [() => queue.extendLeases([job], -5), 'JOBS_INVALID_ARGUMENT', 'leaseMs'],
      [() => queue.extendLease(job, Number.POSITIVE_INFINITY), 'JOBS_INVALID_ARGUMENT', 'leaseMs'],
      [() => queue.reclaimStuck({ batch: 0 }), 'JOBS_INVALID_ARGUMENT', 'batch'],
      [() => queue.reclaimStuck({ scanBudget: -1 }), 'JOBS_INVALID_ARGUMENT', 'scanBudget'],
      [() => queue.promoteDue(Number.NaN), 'JOBS_INVALID_ARGUMENT', 'batch'],
      [() => queue.cancel(''), 'JOBS_INVALID_ARGUMENT', 'id'],
      [() => queue.cancel(anyValue(42)), 'JOBS_INVALID_ARGUMENT', 'id'],
      [() => queue.promote('bad id'), 'JOBS_INVALID_ARGUMENT', 'id'],
      [() => queue.changePriority(anyValue(7), 1), 'JOBS_INVALID_ARGUMENT', 'id'],
      [() => queue.changePriority('ok-id', 1001), 'JOBS_INVALID_ARGUMENT', 'priority'],
      [() => queue.changePriority('ok-id', 0.5), 'JOBS_INVALID_ARGUMENT', 'priority'],
      [() => queue.remove(''), 'JOBS_INVALID_ARGUMENT', 'id'],
      [() => queue.pause({ by: 'x'.repeat(65) }), 'JOBS_INVALID_ARGUMENT', 'by'],
      [() => queue.retry(['ok-id', 'bad id']), 'JOBS_INVALID_ARGUMENT', 'ids[1]'],
      [() => queue.retryFailed({ batch: 0 }), 'JOBS_INVALID_ARGUMENT', 'batch'],
      [() => queue.list('pending', { limit: 0 }), 'JOBS_INVALID_ARGUMENT', 'limit'],
      [() => queue.list('pending', { offset: -1 }), 'JOBS_INVALID_ARGUMENT', 'offset'],
      [() => queue.list(anyValue('everything')), 'JOBS_INVALID_ARGUMENT', 'state'],
      [() => queue.getJob('../etc/passwd'), 'JOBS_INVALID_ARGUMENT', 'id'],
      [() => queue.getJob('a'.repeat(200)), 'JOBS_INVALID_ARGUMENT', 'id'],
      [() => queue.why('../etc/passwd'), 'JOBS_INVALID_ARGUMENT', 'id'],
      [() => queue.why(anyValue(42)), 'JOBS_INVALID_ARGUMENT', 'id'],
      [() => queue.tidyHistory(0), 'JOBS_INVALID_ARGUMENT', 'batch'],
    ];
    for (const [call, code, field] of cases) {
      const error = await jobsErrorOf(call);
      expect({ code: error.code, field: error.field }, call.toString()).toEqual({ code, field });
    }
    // The job is still claimed and whole.
    expect((await queue.getJob(job.id))?.status).toBe('processing');
    await queue.complete(job, 'fine');
    await queue.close();
  });

  test('defineKinds refuses odd kind names and non-object definitions', async () => {
    for (const [definitions, field] of [
      [null, 'kinds'],
      [{ 'kind with space': { schema: { type: 'object' } } }, 'kinds.kind with space'],
      [{ 'é': { schema: { type: 'object' } } }, 'kinds.é'],
      [{ ['x'.repeat(65)]: { schema: { type: 'object' } } }, `kinds.${'x'.repeat(65)}`],
      [{ ok: { schema: { type: 'object' }, timeoutMs: 0 } }, 'kinds.ok.timeoutMs'],
    ] as [unknown, string][]) {
      const error = await jobsErrorOf(() => defineKinds(anyValue(definitions)));
      expect({ code: error.code, field: error.field }).toEqual({ code: 'JOBS_INVALID_ARGUMENT', field });
    }
    expect((await jobsErrorOf(() => defineKinds({ ok: { schema: { type: 'object' } } }, { maxPayloadBytes: 0 }))).field).toBe('maxPayloadBytes');
  });
});

describe('unknown option keys are refused with a typed error naming the key, and nothing is written', () => {
  const mail = { recipient: 'a@example.com' };

  test('enqueue, enqueueMany, flows and schedules', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const cases: [() => unknown, string][] = [
      [() => queue.enqueue('email', mail, anyValue({ ttl: 5 })), 'options.ttl'],
      [() => queue.enqueue('email', mail, anyValue({ prority: 5 })), 'options.prority'],
      [() => queue.enqueue('email', mail, anyValue({ priority: 1, delay: 10 })), 'options.delay'],
      [() => queue.enqueueMany([{ kind: 'email', payload: mail }, { kind: 'email', payload: mail, options: anyValue({ prority: 5 }) }]), 'jobs[1].options.prority'],
      [() => queue.enqueueMany([{ kind: 'email', payload: mail }, anyValue({ kind: 'email', payload: mail, optons: { priority: 5 } })]), 'jobs[1].optons'],
      [() => queue.enqueueFlow(anyValue({ kind: 'email', payload: mail, childs: [] })), 'flow.childs'],
      [() => queue.enqueueFlow({ kind: 'email', payload: mail, children: [{ kind: 'email', payload: mail, options: anyValue({ onChildFailur: 'ignore' }) }] }), 'flow.children[0].options.onChildFailur'],
      [() => queue.schedules.upsert(anyValue({ id: 's', kind: 'email', payload: mail, every: 60_000, startAtt: 5 })), 'startAtt'],
      [() => queue.schedules.upsert(anyValue({ id: 's', kind: 'email', payload: mail, cron: '0 8 * * *', timezone: 'Europe/Paris' })), 'timezone'],
    ];
    for (const [call, field] of cases) {
      const error = await jobsErrorOf(call);
      expect({ code: error.code, field: error.field }, call.toString()).toEqual({ code: 'JOBS_INVALID_ARGUMENT', field });
      expect(error.message).toContain(JSON.stringify(field.split('.').at(-1)));
    }
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
    await queue.close();
  });

  test('claim, complete, fail, reclaim, retry, list, timeline, events, pause, resume, schedules.list', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', mail);
    const [job] = (await queue.claim()) as [ClaimedJob];
    const cases: [() => unknown, string][] = [
      [() => queue.claim(anyValue({ block: 100 })), 'options.block'],
      [() => queue.completeAndClaim(job, 'x', anyValue({ count: 2 })), 'options.count'],
      [() => queue.completeManyAndClaim([{ job, result: 'x' }], anyValue({ maximum: 2 })), 'options.maximum'],
      [() => queue.fail(job, 'x', anyValue({ retryDelay: 5 })), 'options.retryDelay'],
      [() => queue.reclaimStuck(anyValue({ size: 5 })), 'options.size'],
      [() => queue.retryFailed(anyValue({ max: 5 })), 'options.max'],
      [() => queue.list('pending', anyValue({ page: 2 })), 'options.page'],
      [() => queue.timeline(job.id, anyValue({ max: 2 })), 'options.max'],
      [() => queue.events(anyValue({ start: '0' })), 'options.start'],
      [() => queue.pause(anyValue({ kind: 'email', batch: 5 })), 'options.batch'],
      [() => queue.pause(anyValue({ knd: 'email' })), 'options.knd'],
      [() => queue.resume(anyValue({ by: 'me' })), 'options.by'],
      [() => queue.resume(anyValue({ kinds: ['email'] })), 'options.kinds'],
      [() => queue.schedules.list(anyValue({ page: 1 })), 'options.page'],
    ];
    for (const [call, field] of cases) {
      const error = await jobsErrorOf(call);
      expect({ code: error.code, field: error.field }, call.toString()).toEqual({ code: 'JOBS_INVALID_ARGUMENT', field });
    }
    // Nothing paused, the job still claimed and whole.
    expect(await redis.exists(queue.keys.admission)).toBe(0);
    expect((await queue.getJob(job.id))?.status).toBe('processing');
    await queue.complete(job, 'fine');
    await queue.close();
  });

  test('constructors: Queue, Queue, Schedules, ScheduleRunner, defineKinds, and nested options', async ({ redis, queueName }) => {
    const store = new RedisScheduleStore(redis, openQueue(redis, queueName).keys);
    const cases: [() => unknown, string][] = [
      [() => new Queue(anyValue({ redis, queue: queueName, kinds, visibility: 5_000 })), 'options.visibility'],
      [() => new Queue(anyValue({ redis, queue: queueName, kinds, durability: { replicas: 1, timeout: 5 } })), 'options.durability.timeout'],
      [() => new Queue(anyValue({ redis, queue: queueName, kinds, eventLog: { max: 10 } })), 'options.eventLog.max'],
      [() => new Queue(anyValue({ redis, queue: queueName, kinds, attemptHistory: { keep: 10, stacks: 5 } })), 'options.attemptHistory.stacks'],
      [() => new Queue(anyValue({ redis, queue: queueName, kinds, attemptHistory: { keep: 0 } })), 'options.attemptHistory.keep'],
      [() => new Queue(anyValue({ redis, queue: queueName, kinds, attemptHistory: { stackBytes: 1e9 } })), 'options.attemptHistory.stackBytes'],
      [() => new Queue(anyValue({ redis, queue: queueName, kinds, attemptHistory: true })), 'options.attemptHistory'],
      [() => new Queue(anyValue({ redis, queue: queueName, kinds, jobLogs: { lines: 10, maxBytes: 5 } })), 'options.jobLogs.maxBytes'],
      [() => new Queue(anyValue({ redis, queue: queueName, kinds, jobLogs: { lineBytes: 1.5 } })), 'options.jobLogs.lineBytes'],
      [() => openQueue(redis, queueName).logs('a b'), 'id'],
      [() => openQueue(redis, queueName).logs('ok', anyValue({ limit: 0 })), 'limit'],
      [() => openQueue(redis, queueName).logs('ok', anyValue({ newest: 5 })), 'options.newest'],
      [() => openQueue(redis, queueName).attempts('{x}'), 'id'],
      [() => new Queue(anyValue({ redis, queue: queueName, kinds, metricsHistory: 1 })), 'options.metricsHistory'],
      [() => new Queue(anyValue({ redis, queue: queueName, kinds, backoff: { type: 'fixed', delayMs: 5, maxDelayMs: 10 } })), 'options.backoff.maxDelayMs'],
      [() => new Queue(anyValue({ redis, queue: queueName, kinds, partitions: 2, partition: 1 })), 'options.partition'],
      [() => new Queue(anyValue({ redis, queue: queueName, kinds, partitions: 2, idSuffix: '.x' })), 'options.idSuffix'],
      [() => new Schedules(anyValue({}), anyValue({ minEvery: 5 })), 'options.minEvery'],
      [() => new ScheduleRunner(anyValue({ store, recheck: 5 })), 'options.recheck'],
      [() => defineKinds(anyValue({ ok: { schema: { type: 'object' }, retries: 3 } })), 'kinds.ok.retries'],
      [() => defineKinds({ ok: { schema: { type: 'object' } } }, anyValue({ maxBytes: 5 })), 'options.maxBytes'],
    ];
    for (const [call, field] of cases) {
      const error = await jobsErrorOf(call);
      expect({ code: error.code, field: error.field }, call.toString()).toEqual({ code: 'JOBS_INVALID_ARGUMENT', field });
    }
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
  });
});

describe('schedule times and cron patterns outside what the docs promise are refused', () => {
  test('startAt and endAt are bounded as an enqueue runAt is: a whole number of ms, at most a year ahead', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const base = { id: 's', kind: 'email' as const, payload: { recipient: 'a@example.com' }, every: 60_000 };
    const yearAhead = Date.now() + 366 * 86_400_000;
    for (const [spec, field] of [
      [{ ...base, startAt: Number.MAX_SAFE_INTEGER }, 'startAt'],
      [{ ...base, startAt: new Date(8.64e15) }, 'startAt'],
      [{ ...base, startAt: yearAhead }, 'startAt'],
      [{ ...base, endAt: Number.MAX_SAFE_INTEGER }, 'endAt'],
      [{ ...base, endAt: new Date(yearAhead) }, 'endAt'],
      [{ ...base, startAt: 1.5 }, 'startAt'],
    ] as const) {
      const error = await jobsErrorOf(() => queue.schedules.upsert(spec));
      expect({ code: error.code, field: error.field }, JSON.stringify(spec)).toEqual({ code: 'JOBS_INVALID_ARGUMENT', field });
    }
    // Still accepted: a start within the year, an end after it.
    const startAt = Date.now() + 86_400_000;
    expect((await queue.schedules.upsert({ ...base, startAt, endAt: startAt + 3_600_000 })).nextRunAt).toBe(startAt);
    expect((await queue.schedules.list()).map((s) => s.id)).toEqual(['s']);
    await queue.close();
  });

  test('a cron pattern has 5 fields, or 6 with seconds first: a 7th (a year), too few, or a nickname is refused on field cron', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const base = { id: 's', kind: 'email' as const, payload: { recipient: 'a@example.com' } };
    for (const cron of ['0 0 8 * * * 2030', '0 8 * *', '8', '@daily', '@hourly', '@yearly', '@reboot']) {
      const error = await jobsErrorOf(() => queue.schedules.upsert({ ...base, cron }));
      expect({ code: error.code, field: error.field }, cron).toEqual({ code: 'JOBS_INVALID_ARGUMENT', field: 'cron' });
    }
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
    for (const cron of ['0 8 * * *', '30 0 8 * * *', '0 8 L * *', '0 8 * * MON-FRI', ' 0  8 * * * ']) {
      expect((await queue.schedules.upsert({ ...base, cron })).nextRunAt, cron).toBeGreaterThan(Date.now() - 60_000);
    }
    await queue.close();
  });
});
