import { EventEmitter } from 'node:events';
import { expect } from 'vitest';
import { silentLogger, type BatchHandlerEntry, type Handler } from '../../src/index.ts';
import type { HeartbeatSink } from '../../src/heartbeats.ts';
import { WorkerScheduler } from '../../src/scheduler.ts';
import type { WorkerEventMap } from '../../src/worker-events.ts';
import type { WorkerMetrics } from '../../src/worker-metrics.ts';
import type { WorkerTracing } from '../../src/worker-tracing.ts';
import { FakeClock } from './fake-clock.ts';
import { fakeGroup, type FakeQueue, type TaskPayloads } from './fake-queue.ts';

/** A worker's scheduling on fake queues (one per partition) and a fake clock: no Redis. */
export interface FakeWorker {
  readonly scheduler: WorkerScheduler<TaskPayloads>;
  readonly events: EventEmitter<WorkerEventMap>;
  /** Every `error` event. */
  readonly errors: unknown[];
  readonly group: ReturnType<typeof fakeGroup>;
}

/** Starts a worker's scheduling on `queues`, running `task` jobs with `handler` (one at a time, or in batches). */
export function startFakeWorker(queues: readonly FakeQueue[], clock: FakeClock, concurrency: number, handler: Handler<TaskPayloads['task'], 'task'> | BatchHandlerEntry<TaskPayloads['task'], 'task'>, metrics?: WorkerMetrics, tracing?: WorkerTracing, heartbeat?: { sink: HeartbeatSink; intervalMs: number }): FakeWorker {
  const events = new EventEmitter<WorkerEventMap>();
  const errors: unknown[] = [];
  events.on('error', (error) => errors.push(error));
  const group = fakeGroup(queues);
  const scheduler = new WorkerScheduler<TaskPayloads>({
    group,
    handlers: { task: handler },
    concurrency,
    reclaimIntervalMs: 0,
    idleWaitMs: 1_000,
    log: silentLogger,
    events,
    clock,
    metrics,
    tracing,
    heartbeat,
    listenForDueJobs: () => ({ ready: Promise.resolve(), close: () => Promise.resolve() }),
  });
  return { scheduler, events, errors, group };
}

/**
 * Lets the worker do all it can without time passing: the fake queue answers in a later turn of
 * the event loop, so a few turns carry a reply through to the claims and starts it leads to.
 * Turns, not time: the same on a loaded machine.
 */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 8; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** Moves `clock` on by `stepMs` at a time, letting the worker settle between steps, until `done()` holds. */
export async function runUntil(clock: FakeClock, done: () => boolean, stepMs = 10, timeoutMs = 15_000): Promise<void> {
  await expect
    .poll(
      async () => {
        await settle();
        if (done()) return true;
        clock.advance(stepMs);
        await settle();
        return done();
      },
      { interval: 1, timeout: timeoutMs },
    )
    .toBe(true);
}

/** A promise with its resolve, for a handler a test finishes when it likes. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

export { FakeClock };
