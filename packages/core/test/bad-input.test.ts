import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { defineKinds, isJobsError, JobQueue, type ClaimedJob } from '../src/index.ts';
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
  test('JobQueue options', async ({ redis }) => {
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
      const error = await jobsErrorOf(() => new JobQueue(anyValue(options)));
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

  test('claim, complete, fail, extend, reclaim, promote, cancel, retry, list, getJob, tidy', async ({ redis, queueName }) => {
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
      [() => queue.retry(['ok-id', 'bad id']), 'JOBS_INVALID_ARGUMENT', 'ids[1]'],
      [() => queue.retryFailed({ batch: 0 }), 'JOBS_INVALID_ARGUMENT', 'batch'],
      [() => queue.list('pending', { limit: 0 }), 'JOBS_INVALID_ARGUMENT', 'limit'],
      [() => queue.list('pending', { offset: -1 }), 'JOBS_INVALID_ARGUMENT', 'offset'],
      [() => queue.list(anyValue('everything')), 'JOBS_INVALID_ARGUMENT', 'state'],
      [() => queue.getJob('../etc/passwd'), 'JOBS_INVALID_ARGUMENT', 'id'],
      [() => queue.getJob('a'.repeat(200)), 'JOBS_INVALID_ARGUMENT', 'id'],
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
