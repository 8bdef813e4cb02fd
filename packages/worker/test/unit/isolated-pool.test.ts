import { describe, expect, test } from 'vitest';
import { isJobsError, silentLogger, type ChildEnd } from '@jobs/core';
import type { JobContext } from '../../src/handler-map.ts';
import type { ChildHandle, ChildListeners } from '../../src/isolate/child-handle.ts';
import { IsolatedPool } from '../../src/isolate/pool.ts';
import type { ToChild } from '../../src/isolate/protocol.ts';
import { FakeClock } from './fake-clock.ts';

/** A child that does what the test says, and records what the pool sent it. */
class FakeChild {
  readonly sent: ToChild[] = [];
  terminated = false;
  readonly handle: ChildHandle;
  readonly #listeners: ChildListeners;
  #exit: () => void = () => undefined;

  constructor(listeners: ChildListeners, pid: number) {
    this.#listeners = listeners;
    const exited = new Promise<void>((resolve) => {
      this.#exit = resolve;
    });
    this.handle = {
      pid,
      threadId: undefined,
      send: (message) => this.sent.push(message),
      terminate: () => {
        if (this.terminated) return;
        this.terminated = true;
        this.die({ exitCode: null, signal: 'SIGKILL', outOfMemory: false });
      },
      exited,
    };
  }

  ready(): void {
    this.#listeners.message({ t: 'ready' });
  }

  /** The seq of the job it runs now. */
  running(): number {
    const run = this.sent.filter((message) => message.t === 'run').at(-1);
    return (run as { seq: number }).seq;
  }

  finish(value: unknown): void {
    this.#listeners.message({ t: 'done', seq: this.running(), ok: true, value });
  }

  failToLoad(message: string): void {
    this.#listeners.message({ t: 'load-failed', error: { error: true, name: 'Error', message, stack: undefined, props: {} } });
  }

  die(end: ChildEnd): void {
    this.#listeners.exit(end);
    this.#exit();
  }
}

function harness(graceMs = 500, size = 2) {
  const clock = new FakeClock();
  const children: FakeChild[] = [];
  const errors: unknown[] = [];
  const pool = new IsolatedPool(
    { kind: 'thumb', isolation: 'process', moduleUrl: 'file:///srv/thumb.js', size, memoryMb: undefined, graceMs },
    {
      clock,
      log: silentLogger,
      reportError: (error) => errors.push(error),
      start: (_options, listeners) => {
        const child = new FakeChild(listeners, 1_000 + children.length);
        children.push(child);
        return child.handle;
      },
    },
  );
  const job = (id: string): { ctx: JobContext; abort: (reason: unknown) => void } => {
    const controller = new AbortController();
    const ctx = { id, kind: 'thumb', attempt: 1, maxAttempts: 3, enqueuedAtMs: 1, signal: controller.signal } as unknown as JobContext;
    return { ctx, abort: (reason) => controller.abort(reason) };
  };
  return { clock, children, errors, pool, job };
}

/** Lets promise callbacks run. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('IsolatedPool', () => {
  test('children start as jobs need them, up to its size; a job beyond waits for the first child that frees', async () => {
    const { children, pool, job } = harness();
    const results = ['a', 'b', 'c'].map((id) => pool.run({ id }, job(id).ctx));
    expect(children).toHaveLength(2);
    for (const child of children) child.ready();
    expect(children.map((child) => child.sent.map((message) => message.t))).toEqual([['run'], ['run']]);
    children[1]?.finish('b done');
    expect(await results[1]).toBe('b done');
    // The third job went to the child that freed, not to a new one.
    expect(children).toHaveLength(2);
    expect(children[1]?.sent.filter((message) => message.t === 'run')).toHaveLength(2);
    children[1]?.finish('c done');
    children[0]?.finish('a done');
    expect(await Promise.all(results)).toEqual(['a done', 'b done', 'c done']);
  });

  test("an aborted job's child hears the reason, and is ended exactly graceMs later unless it settles; a waiting job just leaves", async () => {
    const { clock, children, pool, job } = harness(500, 1);
    const first = job('a');
    const waiting = job('b');
    void pool.run({}, first.ctx);
    void pool.run({}, waiting.ctx);
    children[0]?.ready();
    waiting.abort(new Error('cancelled while waiting'));
    first.abort(Object.assign(new Error('too slow'), { code: 'JOBS_TIMEOUT' }));
    expect(children[0]?.sent.at(-1)).toMatchObject({ t: 'abort', reason: { message: 'too slow', props: { code: 'JOBS_TIMEOUT' } } });
    clock.advance(499);
    expect(children[0]?.terminated).toBe(false);
    clock.advance(1);
    expect(children[0]?.terminated).toBe(true);
    // The aborted waiting job never reached a child: none was started for it.
    await turn();
    expect(children).toHaveLength(1);
  });

  test("the kind's timeout counts from the job's start in a child, not from its wait for one", async () => {
    const { clock, children, pool, job } = harness(500, 1);
    const stopped: unknown[] = [];
    void pool.handler(300, (reason) => stopped.push(reason))({}, job('a').ctx);
    // The child takes its time to start: the job waits, unstopped.
    clock.advance(5_000);
    expect(stopped).toEqual([]);
    children[0]?.ready();
    clock.advance(299);
    expect(stopped).toEqual([]);
    clock.advance(1);
    expect(stopped).toHaveLength(1);
    expect(stopped[0]).toMatchObject({ code: 'JOBS_TIMEOUT', timeoutMs: 300, message: 'job a (thumb) did not finish within 300 ms' });
  });

  test('a child that settles within its grace period is kept for the next job', async () => {
    const { clock, children, pool, job } = harness(500, 1);
    const first = job('a');
    void pool.run({}, first.ctx);
    children[0]?.ready();
    first.abort(new Error('stop'));
    children[0]?.finish('late');
    clock.advance(10_000);
    expect(children[0]?.terminated).toBe(false);
    const next = pool.run({}, job('b').ctx);
    children[0]?.finish('next');
    expect(await next).toBe('next');
  });

  test('a child that dies mid-job fails it with JOBS_HANDLER_CRASHED saying how, and the next job starts a new child', async () => {
    const { children, pool, job } = harness();
    const running = pool.run({}, job('a').ctx);
    children[0]?.ready();
    children[0]?.die({ exitCode: null, signal: null, outOfMemory: true });
    const error = await running.catch((failure: unknown) => failure);
    expect(isJobsError(error, 'JOBS_HANDLER_CRASHED')).toBe(true);
    expect((error as Error).message).toBe('the isolated handler of kind "thumb" crashed while it ran job a: out of memory');
    void pool.run({}, job('b').ctx);
    expect(children).toHaveLength(2);
  });

  test('a module that fails to load fails the waiting jobs, reports once, and blocks new children for 1 s, then 2 s; a loaded child resets it', async () => {
    const { clock, children, errors, pool, job } = harness();
    const waiting = [pool.run({}, job('a').ctx), pool.run({}, job('b').ctx)];
    expect(children).toHaveLength(2);
    children[0]?.failToLoad('Cannot find module /srv/thumb.js');
    for (const failed of waiting) {
      await expect(failed).rejects.toMatchObject({ code: 'JOBS_INVALID_ARGUMENT', field: 'handlers.thumb.module' });
    }
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toContain('file:///srv/thumb.js could not be loaded in a process: Cannot find module /srv/thumb.js');
    // The other child started for the jobs fails the same way, and says so too.
    children[1]?.failToLoad('Cannot find module /srv/thumb.js');
    expect(errors).toHaveLength(2);
    // Blocked: a job fails at once and no child starts.
    await expect(pool.run({}, job('c').ctx)).rejects.toMatchObject({ field: 'handlers.thumb.module' });
    expect(children).toHaveLength(2);
    clock.advance(2_000);
    // Past the wait, one child tries again, however many jobs wait.
    const retried = [pool.run({}, job('d').ctx), pool.run({}, job('e').ctx)];
    expect(children).toHaveLength(3);
    children[2]?.ready();
    children[2]?.finish('d done');
    expect(await retried[0]).toBe('d done');
    // Loaded again: the pool grows to its size once more.
    void pool.run({}, job('f').ctx);
    expect(children).toHaveLength(4);
  });

  test('close ends idle and starting children at once and fails the jobs that wait with JOBS_CLOSED', async () => {
    const { children, pool, job } = harness(500, 1);
    const running = pool.run({}, job('a').ctx);
    const waiting = pool.run({}, job('b').ctx);
    await pool.close();
    expect(children[0]?.terminated).toBe(true);
    await expect(waiting).rejects.toMatchObject({ code: 'JOBS_CLOSED' });
    await expect(running).rejects.toMatchObject({ code: 'JOBS_CLOSED' });
  });
});
