import { createServer, type Socket } from 'node:net';
import { within } from '@jobs/testing';
import { describe, expect, test } from 'vitest';
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
