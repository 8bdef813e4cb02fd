import { createServer, type Socket } from 'node:net';
import { onEveryNode, redisTest, urlWithUser, within } from '@jobs/testing';
import { describe, expect, test } from 'vitest';
import { createProducer } from '@jobs/producer';
import { createWorker, isJobsError } from '../src/index.ts';
import { kinds, okHandlers } from './kinds.ts';

describe('worker.ready() gives up after readyTimeoutMs', () => {
  test('readyTimeoutMs is checked before anything opens: a whole number of ms from 1 to 3,600,000', () => {
    for (const bad of [0, -1, 1.5, 3_600_001, '10' as unknown as number]) {
      let error: unknown;
      try {
        createWorker({ redis: 'redis://127.0.0.1:1', queue: 'bad-ready', kinds, handlers: okHandlers, readyTimeoutMs: bad });
      } catch (thrown) {
        error = thrown;
      }
      expect(error, String(bad)).toMatchObject({ code: 'JOBS_INVALID_ARGUMENT', field: 'readyTimeoutMs' });
    }
  });

  redisTest('an ACL user without PING: its NOPERM answer counts as Redis answering, and the worker starts and runs jobs', async ({ redis, redisUrl, queueName }) => {
    const user = `no-ping-${queueName}`;
    // A cluster does not share its users: every node (replicas too) must know this one.
    await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'on', '>no-ping-pw', '~*', '&*', '+@all', '-ping'));
    const url = urlWithUser(redisUrl, user, 'no-ping-pw');
    const worker = createWorker({ redis: url, queue: queueName, kinds, handlers: okHandlers, reclaimIntervalMs: 0, readyTimeoutMs: 20_000 });
    const producer = createProducer({ redis, queue: queueName, kinds });
    try {
      await within(worker.ready(), 25_000, () => 'ready() of a worker whose user may not PING');
      const id = await producer.enqueue('email', { recipient: 'a@example.com' });
      expect(await producer.waitForResult(id, { timeoutMs: 20_000 })).toBeDefined();
    } finally {
      await worker.close();
      await producer.close();
      await onEveryNode(redis, (node) => node.acl('DELUSER', user));
    }
  });

  test('a server that accepts the connection and never answers: ready() rejects with JOBS_TIMEOUT, and the worker still closes', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    // No schedule runner: its stop waits for its call in flight, up to the command timeout.
    const worker = createWorker({ redis: `redis://127.0.0.1:${port}`, queue: 'silent', kinds, handlers: okHandlers, reclaimIntervalMs: 0, readyTimeoutMs: 300, schedules: false });
    worker.on('error', () => undefined);
    try {
      const error = await within(worker.ready().catch((e: unknown) => e), 20_000, () => 'ready() to give up');
      expect(isJobsError(error, 'JOBS_TIMEOUT')).toBe(true);
      expect(error).toMatchObject({ field: 'readyTimeoutMs', timeoutMs: 300 });
    } finally {
      await within(worker.close({ graceMs: 0 }), 20_000, () => 'the worker to close');
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
