import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Queue, type RedisClient } from '@jobs/core';
import { startRedisServer } from '@jobs/dev-redis';
import { isClusterRun, onEveryNode, openRedis, parseClusterUrl, redisTest as test, uniqueQueueName, urlWithUser, within } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createProducer, isJobsError, type PayloadTypesOf } from '../src/index.ts';
import { kinds } from './kinds.ts';

type Payloads = PayloadTypesOf<typeof kinds>;

/** A minimal worker made from core's Queue, so these tests need no worker package. */
function rawWorker(redis: RedisClient, queue: string): Queue<Payloads> {
  return new Queue({ redis, queue, kinds, backoff: { type: 'fixed', delayMs: 0 } });
}

describe('producer', () => {
  test('enqueue validates and returns the id after one round trip; getJob reads it back', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const id = await producer.enqueue('email', { recipient: 'alice@example.com', subject: 'hi' });
    const job = await producer.getJob(id);
    expect(job).toMatchObject({ id, status: 'pending', kind: 'email', payload: { kind: 'email', recipient: 'alice@example.com', subject: 'hi' } });
    expect(await producer.getJob('0123456789abcdef')).toBeNull();
    await producer.close();
  });

  test('enqueueMany validates every job before writing any', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const error = await producer
      .enqueueMany([
        { kind: 'email', payload: { recipient: 'a@example.com' } },
        { kind: 'resize', payload: { image: 'a.png', width: -1 } },
      ])
      .catch((e: unknown) => e);
    expect(isJobsError(error, 'JOBS_VALIDATION')).toBe(true);
    expect((error as { field: string }).field).toBe('jobs[1].payload');
    expect((await producer.stats()).enqueuedTotal).toBe(0);
    const results = await producer.enqueueMany([
      { kind: 'email', payload: { recipient: 'a@example.com' } },
      { kind: 'resize', payload: { image: 'a.png', width: 64 }, options: { delayMs: 5_000 } },
    ]);
    expect(results.map((r) => r.created)).toEqual([true, true]);
    expect(await producer.stats()).toMatchObject({ pendingDepth: 1, delayedDepth: 1 });
    await producer.close();
  });

  test('waitForResult returns the result of a job that completes while it waits', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = rawWorker(redis, queueName);
    const id = await producer.enqueue('email', { recipient: 'a@example.com' });
    const waiting = producer.waitForResult<{ sent: boolean }>(id, { timeoutMs: 10_000 });
    const [job] = await worker.claim({ blockMs: 5_000 });
    if (!job) throw new Error('no job claimed');
    await worker.complete(job, { sent: true });
    expect(await waiting).toEqual({ sent: true });
    await producer.close();
    await worker.close();
  });

  test('waitForResult sees a job that completed before the wait began', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = rawWorker(redis, queueName);
    const id = await producer.enqueue('email', { recipient: 'a@example.com' });
    const [job] = await worker.claim();
    if (!job) throw new Error('no job claimed');
    await worker.complete(job, 'already done');
    expect(await producer.waitForResult(id, { timeoutMs: 1_000 })).toBe('already done');
    await producer.close();
    await worker.close();
  });

  test('waitForResult still finishes when the queue publishes no events', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = new Queue({ redis, queue: queueName, kinds, events: false });
    const id = await producer.enqueue('email', { recipient: 'a@example.com' });
    const waiting = producer.waitForResult(id, { timeoutMs: 10_000 });
    const [job] = await worker.claim({ blockMs: 5_000 });
    if (!job) throw new Error('no job claimed');
    await worker.complete(job, 42);
    expect(await waiting).toBe(42);
    await producer.close();
    await worker.close();
  });

  test('waitForResult rejects with JOBS_JOB_FAILED, JOBS_TIMEOUT, JOBS_NOT_FOUND or the abort reason', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const worker = rawWorker(redis, queueName);
    const failing = await producer.enqueue('resize', { image: 'broken.png', width: 10 });
    const waitingForFailure = producer.waitForResult(failing, { timeoutMs: 10_000 }).catch((e: unknown) => e);
    const [job] = await worker.claim({ blockMs: 5_000 });
    if (!job) throw new Error('no job claimed');
    await worker.fail(job, new Error('corrupt image'));
    const failure = await waitingForFailure;
    expect(isJobsError(failure, 'JOBS_JOB_FAILED')).toBe(true);
    expect(failure).toMatchObject({ status: 'failed', lastError: 'corrupt image' });

    const pending = await producer.enqueue('email', { recipient: 'a@example.com' });
    expect(isJobsError(await producer.waitForResult(pending, { timeoutMs: 30 }).catch((e: unknown) => e), 'JOBS_TIMEOUT')).toBe(true);
    const controller = new AbortController();
    const aborted = producer.waitForResult(pending, { timeoutMs: 10_000, signal: controller.signal }).catch((e: unknown) => e);
    controller.abort(new Error('request closed'));
    expect(await aborted).toMatchObject({ message: 'request closed' });
    await producer.cancel(pending);
    expect(await producer.waitForResult(pending).catch((e: unknown) => e)).toMatchObject({ code: 'JOBS_JOB_FAILED', status: 'cancelled' });
    expect(isJobsError(await producer.waitForResult('ffffffffffffffff').catch((e: unknown) => e), 'JOBS_NOT_FOUND')).toBe(true);
    expect(isJobsError(await producer.waitForResult('bad id').catch((e: unknown) => e), 'JOBS_INVALID_ARGUMENT')).toBe(true);
    await producer.close();
    await worker.close();
  });

  test('cancel removes a pending job', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const id = await producer.enqueue('email', { recipient: 'a@example.com' });
    expect(await producer.cancel(id)).toEqual({ cancelled: true, wasRunning: false });
    expect(await producer.cancel(id)).toEqual({ cancelled: false, status: 'cancelled' });
    expect((await producer.stats()).pendingDepth).toBe(0);
    await producer.close();
  });

  test('promote, changePriority and remove pass through to the queue; a waiter of a removed job hears JOBS_NOT_FOUND', async ({ redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const delayed = await producer.enqueue('email', { recipient: 'a@example.com' }, { delayMs: 3_600_000 });
    expect(await producer.changePriority(delayed, 3)).toEqual({ changed: true, priority: 3 });
    expect(await producer.promote(delayed)).toEqual({ promoted: true });
    expect(await producer.promote(delayed)).toEqual({ promoted: false, status: 'pending' });
    const waiting = producer.waitForResult(delayed, { timeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(await producer.remove(delayed)).toEqual({ removed: true });
    expect(isJobsError(await waiting, 'JOBS_NOT_FOUND')).toBe(true);
    expect(await producer.getJob(delayed)).toBeNull();
    await producer.close();
  });

  test('idempotency keys under 20 concurrent producers racing on one key: one job', async ({ redisUrl, redis, queueName }) => {
    const connections = Array.from({ length: 20 }, () => openRedis(redisUrl));
    const producers = connections.map((connection) => createProducer({ redis: connection, queue: queueName, kinds }));
    const ids = await Promise.all(producers.map((producer, n) => producer.enqueue('email', { recipient: `p${n}@example.com` }, { idempotencyKey: 'signup:alice' })));
    expect(new Set(ids).size).toBe(1);
    const stats = await producers[0]!.stats();
    expect(stats).toMatchObject({ enqueuedTotal: 1, pendingDepth: 1 });
    await Promise.all(producers.map((p) => p.close()));
    for (const connection of connections) connection.disconnect();
    expect(await redis.llen(`queue:{${queueName}}:pending`)).toBe(1);
  });

  test('connects with a redis:// URL carrying an ACL user and password', async ({ redis, redisUrl, queueName }) => {
    const user = `producer-${queueName}`;
    // A cluster does not share its users: every node (replicas too) must know this one.
    await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'on', '>s3cret-pass', `~queue:{${queueName}}:*`, `&queue:{${queueName}}:events`, '+@all'));
    const producer = createProducer({ redis: urlWithUser(redisUrl, user, 's3cret-pass'), queue: queueName, kinds });
    const id = await producer.enqueue('email', { recipient: 'acl@example.com' });
    expect((await producer.getJob(id))?.status).toBe('pending');
    // This user may not publish on the queue's wake channel (its rules predate it): a delayed
    // job is still written, without the notice to waiting workers.
    const delayed = await producer.enqueue('email', { recipient: 'acl@example.com' }, { delayMs: 60_000 });
    expect((await producer.getJob(delayed))?.status).toBe('delayed');
    await producer.close();
    const wrongOptions = { username: user, password: 'nope', maxRetriesPerRequest: 0, retryStrategy: () => null };
    const wrong = createProducer({
      redis: isClusterRun()
        ? { cluster: parseClusterUrl(redisUrl).seeds, redisOptions: wrongOptions, clusterRetryStrategy: () => null }
        : { host: new URL(redisUrl).hostname, port: Number(new URL(redisUrl).port), ...wrongOptions },
      queue: queueName,
      kinds,
    });
    const error = await wrong.enqueue('email', { recipient: 'acl@example.com' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).not.toContain('nope');
    await wrong.close();
    await onEveryNode(redis, (node) => node.acl('DELUSER', user));
  });

  test('while Redis stays down, enqueue fails with JOBS_REDIS_UNAVAILABLE within the command timeout instead of hanging', async () => {
    const { findFreePort } = await import('@jobs/dev-redis');
    const port = await findFreePort();
    // Nothing listens on the port: one server, or a cluster whose only seed is down.
    const url = isClusterRun() ? `redis+cluster://127.0.0.1:${port}` : `redis://127.0.0.1:${port}`;
    const producer = createProducer({ redis: url, queue: 'down', kinds, commandTimeoutMs: 300 });
    // A hang would outlast this deadline by far; the command timeout is 300 ms.
    const error = await within(producer.enqueue('email', { recipient: 'a@example.com' }).catch((e: unknown) => e), 15_000, () => 'the enqueue to a Redis that stays down did not fail');
    expect(isJobsError(error, 'JOBS_REDIS_UNAVAILABLE')).toBe(true);
    await producer.close();
  });

  // Starts a TLS redis-server of its own: a cluster run would only repeat it.
  test.skipIf(isClusterRun())('connects over TLS (rediss://) to a server with a test certificate', async () => {
    const server = await startRedisServer({ name: 'producer-tls', tls: true });
    try {
      const producer = createProducer({ redis: { host: '127.0.0.1', port: server.port, tls: { ca: server.tlsCa } }, queue: 'tls', kinds });
      const id = await producer.enqueue('email', { recipient: 'tls@example.com' });
      expect((await producer.getJob(id))?.status).toBe('pending');
      await producer.close();
    } finally {
      await server.stop();
    }
  });

  test('a script that uses the producer exits on its own after close(): no open handles', async ({ redisUrl }) => {
    const script = fileURLToPath(new URL('./fixtures/enqueue-and-exit.mjs', import.meta.url));
    const child = spawn(process.execPath, [script], { env: { ...process.env, REDIS_URL: redisUrl, QUEUE: uniqueQueueName('exit') }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.on('exit', (exitCode) => {
        clearTimeout(killer);
        resolve(exitCode);
      });
    });
    expect(out).toMatch(/wait: JOBS_TIMEOUT/);
    expect(out).toMatch(/enqueued [0-9a-f]{16}/);
    expect(code).toBe(0);
  });
});
