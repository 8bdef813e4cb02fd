import { isScriptCall, openProxiedRedis, queueKeysIn, redisTest, type ProxiedRedis, type RedisTestContext } from '@jobs/testing';
import { describe, expect } from 'vitest';
import type { Queue, PayloadTypesOf } from '../src/index.ts';
import type { kinds } from './fixtures.ts';
import { openQueue } from './fixtures.ts';

// Every admin operation that moves jobs, run through a proxy that drops the connection right
// after Redis has replied (so ioredis sends the command again), or that holds a call forever
// (its caller is as good as dead): afterwards every job runs, and until then every job is counted
// and listed.

type TestQueue = Queue<PayloadTypesOf<typeof kinds>>;

const mail = (n: number) => ({ recipient: 'a@example.com', n });

/** The test's queue on a connection through a proxy, and the same queue on the test's own connection. */
const test = redisTest.extend<{ proxied: ProxiedRedis; viaProxy: TestQueue; direct: TestQueue }>({
  proxied: async ({ redisUrl, redis }: RedisTestContext, use) => {
    const proxied = await openProxiedRedis(redisUrl, redis, { maxRetriesPerRequest: 20, commandTimeout: 8_000 });
    await use(proxied);
    proxied.redis.disconnect();
    await proxied.proxy.close();
  },
  viaProxy: async ({ proxied, queueName }, use) => {
    const queue = openQueue(proxied.redis, queueName);
    // One call first, so that the proxy counts only the calls of the operation under test (a
    // connection without FCALL learns so from its first call, refused).
    await queue.stats();
    await use(queue);
    await queue.close();
  },
  direct: async ({ redis, queueName }, use) => {
    const queue = openQueue(redis, queueName);
    await use(queue);
    await queue.close();
  },
});

/**
 * `count` emails, all but one parked by a claim because their kind is capped at one running: the
 * one that started stays running (its completion would hand its slot to a parked job).
 */
async function parkUnderCap(queue: TestQueue, count: number): Promise<void> {
  await queue.setLimits({ kinds: { email: { concurrency: 1 } } });
  await queue.enqueueMany(Array.from({ length: count }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
  expect(await queue.claim({ max: count })).toHaveLength(1);
  expect((await queue.stats()).parkedDepth).toBe(count - 1);
}

/**
 * Runs `operation` and, should it fail (a cluster node's connection does not resend what it had
 * in flight), once more: what a caller that saw the connection drop does.
 */
async function retried<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch {
    return operation();
  }
}

/** Claims and completes until a claim finds nothing; returns the ids that ran. */
async function runEveryJob(queue: TestQueue): Promise<Set<string>> {
  const ran = new Set<string>();
  for (;;) {
    const jobs = await queue.claim({ max: 100 });
    if (jobs.length === 0) return ran;
    await queue.completeMany(jobs.map((job) => ({ job, result: null })));
    for (const job of jobs) ran.add(job.id);
  }
}

/** Every job waiting is counted by stats and listed by list('waiting'), and the depths add up. */
async function expectAllVisible(queue: TestQueue, waiting: number): Promise<void> {
  const stats = await queue.stats();
  expect(stats.waitingDepth).toBe(waiting);
  expect(stats.pendingDepth + stats.prioritizedDepth + stats.parkedDepth + (stats.groupedDepth ?? 0)).toBe(waiting);
  expect(await queue.list('waiting', { limit: 1_000 })).toHaveLength(waiting);
}

describe('an admin operation whose reply is lost is finished by the resent command', () => {
  test('the proxy: Redis ran the command whose reply it dropped, and the client sent it again', async ({ proxied, redis, queueName }) => {
    const key = `queue:{${queueName}}:proxy-check`;
    const dropped = proxied.proxy.dropAfterReply((command) => command[0] === 'INCR');
    expect(await proxied.redis.incr(key)).toBe(2);
    await dropped;
    expect(await redis.get(key)).toBe('2');
  });

  test('a batch of completions run twice completes each job once and leaves the newer claims in processing, in order', async ({ proxied, viaProxy, direct, redis, queueName }) => {
    const k = `queue:{${queueName}}:`;
    await direct.enqueueMany(Array.from({ length: 12 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    const jobs = await direct.claim({ max: 12 });
    const newer = (await redis.lrange(`${k}processing`, 0, -1)).slice(0, 4);
    // The 8 claimed first: the tail of processing, which a batch leaves in one step.
    const dropped = proxied.proxy.dropAfterReply(isScriptCall);
    // The resend's answer is the second run's (each claim already ended); what counts is Redis's state.
    await viaProxy.completeSettled(jobs.slice(0, 8).map((job) => ({ job, result: job.id })));
    await dropped;
    expect(await redis.lrange(`${k}processing`, 0, -1)).toEqual(newer);
    expect(await redis.zcount(`${k}leases`, '-inf', '(+inf')).toBe(4);
    expect(await redis.llen(`${k}completed`)).toBe(8);
    expect((await direct.stats()).completedTotal).toBe(8);
    for (const job of jobs.slice(0, 8)) expect(await direct.getJob(job.id)).toMatchObject({ status: 'completed', result: job.id });
  });

  test('setLimits({}) run twice still moves back every job its limit had parked', async ({ proxied, viaProxy, direct }) => {
    await parkUnderCap(direct, 30);
    const dropped = proxied.proxy.dropAfterReply(isScriptCall);
    await viaProxy.setLimits({});
    await dropped;
    await expectAllVisible(direct, 29);
    expect((await runEveryJob(direct)).size).toBe(29);
    expect(await direct.stats()).toMatchObject({ waitingDepth: 0, parkedDepth: 0, completedDepth: 29 });
  });

  test('setLimits({}) run twice moves back prioritized and grouped jobs too, counted and listed all along', async ({ proxied, viaProxy, direct }) => {
    await direct.setLimits({ kinds: { email: { concurrency: 1 } } });
    await direct.enqueueMany(Array.from({ length: 24 }, (_, n) => ({ kind: 'email' as const, payload: mail(n), options: { priority: n % 3, ...(n % 2 === 0 && { group: `g${n % 4}` }) } })));
    expect(await direct.claim({ max: 100 })).toHaveLength(1);
    await expectAllVisible(direct, 23);
    const dropped = proxied.proxy.dropAfterReply(isScriptCall);
    await viaProxy.setLimits({});
    await dropped;
    await expectAllVisible(direct, 23);
    expect((await direct.stats()).parkedDepth).toBe(0);
    expect((await runEveryJob(direct)).size).toBe(23);
  });

  test('a resume of a kind run twice moves back every parked job once', async ({ proxied, viaProxy, direct }) => {
    await direct.pause({ kind: 'email' });
    await direct.enqueueMany(Array.from({ length: 30 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    expect(await direct.claim({ max: 100 })).toHaveLength(0);
    expect((await direct.stats()).parkedDepth).toBe(30);
    const dropped = proxied.proxy.dropAfterReply(isScriptCall, 2);
    await viaProxy.resume({ kind: 'email', batch: 7 });
    await dropped;
    await expectAllVisible(direct, 30);
    expect((await runEveryJob(direct)).size).toBe(30);
  });

  test('a pause run twice holds the kind, and its resume lets every job run', async ({ proxied, viaProxy, direct }) => {
    const dropped = proxied.proxy.dropAfterReply(isScriptCall);
    await viaProxy.pause({ kind: 'email' });
    await dropped;
    await direct.enqueueMany(Array.from({ length: 20 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    expect(await direct.claim({ max: 100 })).toHaveLength(0);
    await expectAllVisible(direct, 20);
    await direct.resume({ kind: 'email' });
    expect((await runEveryJob(direct)).size).toBe(20);
  });

  test('a redrive (retry) and a retry of every failed job run twice put each job back once', async ({ proxied, viaProxy, direct }) => {
    const ids = (await direct.enqueueMany(Array.from({ length: 20 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })))).map((result) => result.id);
    for (const job of await direct.claim({ max: 100 })) await direct.fail(job, new Error('boom'), { permanent: true });
    expect((await direct.stats()).failedDepth).toBe(20);
    let dropped = proxied.proxy.dropAfterReply(isScriptCall);
    // The call sent again answers as the first did: each job redriven (by it), none twice.
    expect(await viaProxy.retry(ids.slice(0, 10))).toEqual(ids.slice(0, 10).map(() => true));
    await dropped;
    dropped = proxied.proxy.dropAfterReply(isScriptCall);
    expect((await viaProxy.retryFailed({ batch: 100 })).retried).toHaveLength(10);
    await dropped;
    // A later redrive of a job already back is refused with its status, as before.
    expect(await direct.retry(ids.slice(0, 1))).toEqual(['pending']);
    await expectAllVisible(direct, 20);
    expect(await direct.stats()).toMatchObject({ failedDepth: 0, redrivenTotal: 20 });
    expect((await runEveryJob(direct)).size).toBe(20);
  });

  test('a promote, a change of priority and a remove run twice answer as the first did, and move each job once', async ({ proxied, viaProxy, direct, redis, queueName }) => {
    const delayed = await direct.enqueue('email', mail(1), { delayMs: 60_000 });
    const waiting = await direct.enqueue('email', mail(2));
    const doomed = await direct.enqueue('email', mail(3), { idempotencyKey: 'order-1' });
    let dropped = proxied.proxy.dropAfterReply(isScriptCall);
    expect(await viaProxy.promote(delayed)).toEqual({ promoted: true });
    await dropped;
    dropped = proxied.proxy.dropAfterReply(isScriptCall);
    expect(await viaProxy.changePriority(waiting, 5)).toEqual({ changed: true, priority: 5 });
    await dropped;
    dropped = proxied.proxy.dropAfterReply(isScriptCall);
    expect(await viaProxy.remove(doomed)).toEqual({ removed: true });
    await dropped;
    // A later call is told the truth.
    expect(await direct.promote(delayed)).toEqual({ promoted: false, status: 'pending' });
    expect(await direct.remove(doomed)).toEqual({ removed: false, status: 'not_found' });
    expect((await queueKeysIn(redis, queueName)).filter((key) => key.includes(doomed) || key.endsWith(':idem:order-1'))).toEqual([]);
    await expectAllVisible(direct, 2);
    expect((await direct.list('waiting')).map((job) => job.id)).toEqual([waiting, delayed]);
    expect((await runEveryJob(direct)).size).toBe(2);
  });

  test('a purge run twice leaves no key of the queue behind', async ({ proxied, viaProxy, direct, redis, queueName }) => {
    await parkUnderCap(direct, 10);
    await direct.enqueue('webhook', { url: 'https://example.com/1' }, { priority: 3 });
    await direct.enqueue('webhook', { url: 'https://example.com/2' }, { delayMs: 60_000 });
    const dropped = proxied.proxy.dropAfterReply((command) => command[0] === 'UNLINK');
    await retried(() => viaProxy.purge());
    await dropped;
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
    expect(await direct.stats()).toMatchObject({ waitingDepth: 0, delayedDepth: 0, completedDepth: 0 });
  });
});

describe('an admin operation whose caller dies halfway leaves every job counted, and a sweep finishes it', () => {
  test('a resume cut short after its first batches: the rest stay counted and listed, and unparkFreed moves them back', async ({ proxied, viaProxy, direct }) => {
    await direct.pause({ kind: 'email' });
    await direct.enqueueMany(Array.from({ length: 40 }, (_, n) => ({ kind: 'email' as const, payload: mail(n) })));
    expect(await direct.claim({ max: 100 })).toHaveLength(0);
    // The fourth call never reaches Redis: the caller is as good as dead after three batches of 5.
    const held = proxied.proxy.holdBefore(isScriptCall, 4);
    void viaProxy.resume({ kind: 'email', batch: 5 }).catch(() => undefined);
    await held;
    expect(await direct.stats()).toMatchObject({ pendingDepth: 15, parkedDepth: 25, pausedKinds: [] });
    await expectAllVisible(direct, 40);
    expect(await direct.unparkFreed({ batch: 10 })).toEqual({ unparked: 10, more: true });
    while ((await direct.unparkFreed({ batch: 10 })).more);
    expect((await direct.stats()).parkedDepth).toBe(0);
    expect((await runEveryJob(direct)).size).toBe(40);
  });

  test('setLimits({}) cut short after its limits are gone: the parked jobs stay counted, and unparkFreed moves them back', async ({ proxied, viaProxy, direct }) => {
    await parkUnderCap(direct, 30);
    // The set-limits call runs; the caller dies before its first unpark.
    const held = proxied.proxy.holdBefore(isScriptCall, 2);
    void viaProxy.setLimits({}).catch(() => undefined);
    await held;
    expect((await direct.limits()).kinds).toBeUndefined();
    await expectAllVisible(direct, 29);
    expect(await direct.unparkFreed()).toEqual({ unparked: 29, more: false });
    expect((await runEveryJob(direct)).size).toBe(29);
  });

  test('a limit deleted behind the queue\'s back: unparkFreed alone moves its parked jobs back', async ({ direct, redis }) => {
    await parkUnderCap(direct, 12);
    await redis.hdel(direct.keys.admission, 'cap_kind:email');
    await expectAllVisible(direct, 11);
    // No claim moves them: the kind has no limit any more.
    expect(await direct.claim({ max: 100 })).toHaveLength(0);
    expect(await direct.unparkFreed()).toEqual({ unparked: 11, more: false });
    expect((await runEveryJob(direct)).size).toBe(11);
    expect(await direct.unparkFreed()).toEqual({ unparked: 0, more: false });
  });

  test('a purge cut short after the job hashes: what is left is counted, and a second purge deletes it', async ({ proxied, viaProxy, direct, redis, queueName }) => {
    await parkUnderCap(direct, 10);
    await direct.enqueue('webhook', { url: 'https://example.com/1' }, { priority: 3 });
    const held = proxied.proxy.holdBefore((command) => command[0] === 'UNLINK', 2);
    void viaProxy.purge().catch(() => undefined);
    await held;
    const left = await queueKeysIn(redis, queueName);
    expect(left.filter((key) => key.startsWith(direct.keys.jobPrefix))).toEqual([]);
    expect(left).toContain(direct.keys.admission);
    const stats = await direct.stats();
    expect(stats.parkedDepth + stats.pendingDepth + stats.prioritizedDepth).toBe(10);
    expect(await direct.claim({ max: 100 })).toHaveLength(0);
    await direct.purge();
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
  });

  test('parked jobs with no mark (stranded by an earlier version): unparkFreed of a queue that knows their kind moves them back', async ({ direct, redis }) => {
    await parkUnderCap(direct, 12);
    await redis.hdel(direct.keys.admission, 'cap_kind:email', 'parking:email');
    expect(await direct.unparkFreed({ batch: 5 })).toEqual({ unparked: 5, more: true });
    // Marked now: counted and listed until the rest are back.
    await expectAllVisible(direct, 11);
    expect(await direct.unparkFreed()).toEqual({ unparked: 6, more: false });
    expect((await runEveryJob(direct)).size).toBe(11);
  });

  test('setLimits({}) again moves back parked jobs with no mark (stranded by an earlier version)', async ({ direct, redis }) => {
    await parkUnderCap(direct, 8);
    await redis.hdel(direct.keys.admission, 'cap_kind:email', 'parking:email');
    await direct.setLimits({});
    await expectAllVisible(direct, 7);
    expect((await direct.stats()).parkedDepth).toBe(0);
    expect((await runEveryJob(direct)).size).toBe(7);
  });

  test('unparkFreed leaves the parked jobs of a kind still paused or limited alone', async ({ direct }) => {
    await parkUnderCap(direct, 5);
    await direct.pause({ kind: 'webhook' });
    await direct.enqueue('webhook', { url: 'https://example.com/1' });
    expect(await direct.claim({ max: 1 })).toHaveLength(0);
    expect((await direct.stats()).parkedDepth).toBe(5);
    expect(await direct.unparkFreed()).toEqual({ unparked: 0, more: false });
    expect((await direct.stats()).parkedDepth).toBe(5);
  });

  test('unparkFreed refuses bad options with a typed error', async ({ direct }) => {
    await expect(direct.unparkFreed({ batch: 0 })).rejects.toMatchObject({ code: 'JOBS_INVALID_ARGUMENT', field: 'batch' });
    await expect(direct.unparkFreed({ bacth: 5 } as never)).rejects.toMatchObject({ code: 'JOBS_INVALID_ARGUMENT', field: 'options.bacth' });
  });
});

describe('the running-job verbs whose reply is lost change nothing more when resent', () => {
  test('a cancel of a running job (its resend says cancelled), a snooze, a hand-off (its resend says repeated) and a checkpoint, each run twice, move the job once', async ({ proxied, viaProxy, direct }) => {
    const sole = viaProxy.partitions[0] as NonNullable<(typeof viaProxy.partitions)[0]>;
    // Each verb once first, so that through EVALSHA the dropped reply is the script's, not a NOSCRIPT.
    for (let n = 0; n < 4; n++) await direct.enqueue('email', mail(10 + n));
    const warm = await viaProxy.claim({ max: 4 });
    await viaProxy.cancel(warm[0]?.id as string);
    await sole.snooze(warm[1] as NonNullable<(typeof warm)[1]>, 60_000);
    await sole.handOff(warm[2] as NonNullable<(typeof warm)[2]>, 'email', 60_000, 1, []);
    await sole.checkpoint(warm[3] as NonNullable<(typeof warm)[3]>, { page: 1 });
    const [cancelled, snoozed, handed, saved] = [await direct.enqueue('email', mail(1)), await direct.enqueue('email', mail(2)), await direct.enqueue('email', mail(3)), await direct.enqueue('email', mail(4))];
    const jobs = new Map((await viaProxy.claim({ max: 4 })).map((job) => [job.id, job]));
    const job = (id: string) => jobs.get(id) as NonNullable<ReturnType<typeof jobs.get>>;

    let dropped = proxied.proxy.dropAfterReply(isScriptCall);
    expect(await retried(() => viaProxy.cancel(cancelled))).toMatchObject({ cancelled: false, status: 'cancelled' });
    await dropped;
    dropped = proxied.proxy.dropAfterReply(isScriptCall);
    await retried(() => sole.snooze(job(snoozed), 60_000));
    await dropped;
    dropped = proxied.proxy.dropAfterReply(isScriptCall);
    expect(await retried(() => sole.handOff(job(handed), 'email', 60_000, 1, []))).toEqual({ outcome: 'repeated' });
    await dropped;
    dropped = proxied.proxy.dropAfterReply(isScriptCall);
    await retried(() => sole.checkpoint(job(saved), { page: 2 }));
    await dropped;

    const stats = await direct.stats();
    // One of each from the warm-up, one from the call run twice.
    expect([stats.cancelledTotal, stats.snoozedTotal, stats.handedOffTotal]).toEqual([2, 2, 2]);
    expect([stats.processingDepth, stats.delayedDepth]).toEqual([2, 4]);
    expect(await Promise.all([cancelled, snoozed, handed, saved].map(async (id) => (await direct.getJob(id))?.status))).toEqual(['cancelled', 'delayed', 'delayed', 'processing']);
    expect((await direct.getJob(saved))?.checkpoint).toEqual({ page: 2 });
    expect((await direct.attempts(snoozed))?.entries.map((attempt) => attempt.outcome)).toEqual(['snoozed']);
  });
});
