import { startRedisServer } from '@jobs/dev-redis';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { Redis } from 'ioredis';
import { describe, expect, test as plainTest } from 'vitest';
import { isJobsError, Queue, queueKeys } from '../src/index.ts';
import { toJobsError } from '../src/internal.ts';
import { kinds, openQueue } from './fixtures.ts';

describe('enqueue', () => {
  test('writes the recipe hash fields and LPUSHes the id onto pending', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const before = Date.now();
    const id = await queue.enqueue('email', { recipient: 'alice@example.com' });
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    const hash = await redis.hgetall(`queue:{${queueName}}:job:${id}`);
    expect(hash).toMatchObject({ id, status: 'pending', attempts: '0', claim_token: '', kind: 'email' });
    expect(JSON.parse(hash.payload as string)).toEqual({ kind: 'email', recipient: 'alice@example.com' });
    expect(Number(hash.enqueued_at_ms)).toBeGreaterThanOrEqual(before - 1_000);
    expect(await redis.lrange(`queue:{${queueName}}:pending`, 0, -1)).toEqual([id]);
    expect((await queue.stats()).enqueuedTotal).toBe(1);
    await queue.close();
  });

  test('keeps FIFO order: the first enqueued is at the claim (right) end', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ids = [];
    for (let n = 0; n < 3; n += 1) ids.push(await queue.enqueue('email', { recipient: 'a@example.com', n }));
    expect(await redis.lrange(`queue:{${queueName}}:pending`, 0, -1)).toEqual([...ids].reverse());
    await queue.close();
  });

  test('enqueueMany writes every job in one call and counts them', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const results = await queue.enqueueMany(
      Array.from({ length: 100 }, (_, n) => ({ kind: 'email' as const, payload: { recipient: 'b@example.com', n } })),
    );
    expect(results).toHaveLength(100);
    expect(new Set(results.map((r) => r.id)).size).toBe(100);
    expect(results.every((r) => r.created)).toBe(true);
    const stats = await queue.stats();
    expect(stats.pendingDepth).toBe(100);
    expect(stats.enqueuedTotal).toBe(100);
    await queue.close();
  });

  test('a delayed job waits in the delayed set with its due time, not in pending', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { recipient: 'c@example.com' }, { delayMs: 60_000 });
    const hash = await redis.hgetall(`queue:{${queueName}}:job:${id}`);
    expect(hash.status).toBe('delayed');
    const score = Number(await redis.zscore(`queue:{${queueName}}:delayed`, id));
    expect(score).toBe(Number(hash.run_at_ms));
    expect(score - Number(hash.enqueued_at_ms)).toBe(60_000);
    expect(await redis.llen(`queue:{${queueName}}:pending`)).toBe(0);
    expect(await queue.claim()).toEqual([]);
    await queue.close();
  });

  test('an idempotency key makes a second enqueue return the first id and write nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const first = await queue.enqueue('email', { recipient: 'd@example.com' }, { idempotencyKey: 'order-42' });
    const second = await queue.enqueue('email', { recipient: 'other@example.com' }, { idempotencyKey: 'order-42' });
    expect(second).toBe(first);
    expect(await redis.llen(`queue:{${queueName}}:pending`)).toBe(1);
    expect((await queue.stats()).enqueuedTotal).toBe(1);
    const ttl = await redis.pttl(`queue:{${queueName}}:idem:order-42`);
    expect(ttl).toBeGreaterThan(0);
    const [a, b] = await queue.enqueueMany([
      { kind: 'email', payload: { recipient: 'e@example.com' }, options: { idempotencyKey: 'batch-1' } },
      { kind: 'email', payload: { recipient: 'e@example.com' }, options: { idempotencyKey: 'batch-1' } },
    ]);
    expect(a).toEqual({ id: a?.id, created: true });
    expect(b).toEqual({ id: a?.id, created: false, heldBy: 'idempotency' });
    await queue.close();
  });

  test('the idempotency key is released after its retention window', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const first = await queue.enqueue('email', { recipient: 'f@example.com' }, { idempotencyKey: 'k', idempotencyTtlMs: 1 });
    await expect.poll(() => redis.exists(`queue:{${queueName}}:idem:k`), { timeout: 5_000 }).toBe(0);
    const second = await queue.enqueue('email', { recipient: 'f@example.com' }, { idempotencyKey: 'k' });
    expect(second).not.toBe(first);
    await queue.close();
  });

  test('the same enqueue call run twice (a reply lost, the command resent) writes the job once', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const { enqueueScript } = await import('../src/generated/enqueue.ts');
    const k = queueKeys(queueName);
    const argv = (payload: string): string[] =>
      enqueueScript.argv(
        { pending: k.pending, delayed: k.delayed, stats: k.stats, log: k.log, jobKeys: [] },
        { count: 1, jobPrefix: k.jobPrefix, wakeChannel: k.wake, prefix: k.prefix, logMaxLen: 0, metrics: 0, jobs: ['aaaabbbbccccdddd', payload, 'email', ''] },
      );
    const run = (payload: string): Promise<unknown> => redis.eval(enqueueScript.source, ...(argv(payload).slice(1) as [string, string]));
    expect(await run('{"kind":"email","recipient":"a@example.com"}')).toEqual(['aaaabbbbccccdddd', 1]);
    expect(await run('{"kind":"email","recipient":"a@example.com"}')).toEqual(['aaaabbbbccccdddd', 1]);
    expect(await redis.llen(`queue:{${queueName}}:pending`)).toBe(1);
    expect((await queue.stats()).enqueuedTotal).toBe(1);
    const refused = await run('{"kind":"email","recipient":"b@example.com"}').catch(toJobsError);
    expect(isJobsError(refused, 'JOBS_DUPLICATE_ID') && refused.field).toBe('id');
    expect((refused as Error).message).toMatch(/aaaabbbbccccdddd/);
    await queue.close();
  });

  test('the enqueue script reads its options as named fields and refuses a name or a value it does not know, writing nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const { enqueueScript } = await import('../src/generated/enqueue.ts');
    const k = queueKeys(queueName);
    const run = (id: string, options: string): Promise<unknown> =>
      redis.eval(
        enqueueScript.source,
        ...(enqueueScript
          .argv(
            { pending: k.pending, delayed: k.delayed, stats: k.stats, log: k.log, jobKeys: [] },
            { count: 1, jobPrefix: k.jobPrefix, wakeChannel: k.wake, prefix: k.prefix, logMaxLen: 0, metrics: 0, jobs: [id, '{"kind":"email","recipient":"a@example.com"}', 'email', options] },
          )
          .slice(1) as [string, string]),
      );
    for (const bad of ['{"prority":5}', '{"priority":1.5}', '{"maxAttempts":-1}', '{"group":7}', '{"group":""}', '[1]', '5,0,0,0,0,0,0,0']) {
      await expect(run('badbadbadbadbad0', bad), bad).rejects.toThrow(/malformed job options/);
    }
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
    await run('aaaabbbbccccdddd', '{"priority":-2,"maxAttempts":3,"group":"acme","ttlMs":1000}');
    const job = await queue.getJob('aaaabbbbccccdddd');
    expect(job).toMatchObject({ priority: -2, fields: { max_attempts: '3', group: 'acme' } });
    expect(job?.expiresAtMs).toBe(Number(job?.fields.enqueued_at_ms) + 1000);
    await queue.close();
  });

  describe('bad input is rejected with a typed error and nothing is written', () => {
    const cases: [string, (queue: ReturnType<typeof openQueue>) => Promise<unknown>, string, string?][] = [
      ['an unknown kind', (q) => q.enqueue('sms' as 'email', { recipient: 'a@example.com' }), 'JOBS_UNKNOWN_KIND', 'kind'],
      ['a schema violation', (q) => q.enqueue('email', { recipient: 'not-an-email' }), 'JOBS_VALIDATION', 'payload'],
      ['a missing required field', (q) => q.enqueue('email', {} as { recipient: string }), 'JOBS_VALIDATION', 'payload'],
      ['an extra field', (q) => q.enqueue('email', { recipient: 'a@example.com', cc: 'x' } as { recipient: string }), 'JOBS_VALIDATION', 'payload'],
      ['a payload with a reserved kind field', (q) => q.enqueue('webhook', { url: 'https://x.test/', kind: 'email' } as { url: string }), 'JOBS_VALIDATION', 'payload'],
      ['a function in the payload', (q) => q.enqueue('webhook', { url: 'https://x.test/', body: { f: () => 1 } }), 'JOBS_NOT_SERIALIZABLE', 'payload/body/f'],
      ['NaN in the payload', (q) => q.enqueue('email', { recipient: 'a@example.com', n: Number.NaN }), 'JOBS_NOT_SERIALIZABLE', 'payload/n'],
      ['a Date in the payload', (q) => q.enqueue('webhook', { url: 'https://x.test/', body: { at: new Date() } }), 'JOBS_NOT_SERIALIZABLE', 'payload/body/at'],
      ['a bigint in the payload', (q) => q.enqueue('webhook', { url: 'https://x.test/', body: { big: 1n } }), 'JOBS_NOT_SERIALIZABLE', 'payload/body/big'],
      ['a payload over the size limit', (q) => q.enqueue('thumbnail', { image: 'x'.repeat(600 * 1024), width: 10 }), 'JOBS_PAYLOAD_TOO_LARGE', 'payload'],
      ['a negative delay', (q) => q.enqueue('email', { recipient: 'a@example.com' }, { delayMs: -1 }), 'JOBS_INVALID_ARGUMENT', 'options.delayMs'],
      ['a NaN delay', (q) => q.enqueue('email', { recipient: 'a@example.com' }, { delayMs: Number.NaN }), 'JOBS_INVALID_ARGUMENT', 'options.delayMs'],
      ['zero max attempts', (q) => q.enqueue('email', { recipient: 'a@example.com' }, { maxAttempts: 0 }), 'JOBS_INVALID_ARGUMENT', 'options.maxAttempts'],
      ['an empty idempotency key', (q) => q.enqueue('email', { recipient: 'a@example.com' }, { idempotencyKey: '' }), 'JOBS_INVALID_ARGUMENT', 'options.idempotencyKey'],
      [
        'one bad job in a batch',
        (q) => q.enqueueMany([{ kind: 'email', payload: { recipient: 'ok@example.com' } }, { kind: 'email', payload: { recipient: 'bad' } }]),
        'JOBS_VALIDATION',
        'jobs[1].payload',
      ],
    ];
    for (const [what, call, code, field] of cases) {
      test(what, async ({ redis, queueName }) => {
        const queue = openQueue(redis, queueName);
        const error = await call(queue).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isJobsError(error, code as 'JOBS_VALIDATION')).toBe(true);
        if (field !== undefined) expect((error as { field?: string }).field).toBe(field);
        expect(await queueKeysIn(redis, queueName)).toEqual([]);
        await queue.close();
      });
    }

    test('a validation error lists every violation with its JSON pointer', async ({ redis, queueName }) => {
      const queue = openQueue(redis, queueName);
      const error = await queue.enqueue('thumbnail', { image: 5, width: 0 } as unknown as { image: string; width: number }).catch((e: unknown) => e);
      expect(isJobsError(error, 'JOBS_VALIDATION')).toBe(true);
      const issues = (error as { issues: { pointer: string; keyword: string }[] }).issues;
      expect(issues.map((i) => i.pointer).sort()).toEqual(['/image', '/width']);
      expect((error as Error).message).toContain('/width');
      await queue.close();
    });
  });

  test('a queue name that would break the key schema is refused before anything is written', async ({ redis }) => {
    for (const name of ['a{b}', 'jobs*', 'x y', '', 'a?b', '[x]', 'é', 'a'.repeat(129)]) {
      let caught: unknown;
      try {
        openQueue(redis, name);
      } catch (error) {
        caught = error;
      }
      expect(isJobsError(caught, 'JOBS_INVALID_ARGUMENT'), name).toBe(true);
      expect((caught as { field: string }).field).toBe('queue');
    }
    expect(kinds.names).toEqual(['email', 'webhook', 'thumbnail']);
  });
});

describe('enqueues of one tick', () => {
  plainTest('go out together, 32 to a script call, and a bad one fails alone', async () => {
    const server = await startRedisServer({ name: 'enqueue-batch' });
    const admin = new Redis(server.url);
    const queue = new Queue({ redis: server.url, queue: 'batched', kinds });
    try {
      await queue.enqueue('email', { recipient: 'warm@example.com' });
      await admin.config('RESETSTAT');
      const calls = Array.from({ length: 40 }, (_, n) => queue.enqueue('email', { recipient: n === 7 ? 'not an email' : `${n}@example.com` }));
      const settled = await Promise.allSettled(calls);
      expect(settled.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(39);
      expect((settled[7] as PromiseRejectedResult).reason).toMatchObject({ code: 'JOBS_VALIDATION', field: 'payload' });
      const ids = settled.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
      expect(new Set(ids).size).toBe(39);
      expect(await admin.llen('queue:{batched}:pending')).toBe(40);
      // 39 jobs: one full batch of 32 sent at once, the other 7 at the end of the tick.
      expect(/cmdstat_fcall:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1]).toBe('2');
    } finally {
      await queue.close();
      admin.disconnect();
      await server.stop();
    }
  });
});
