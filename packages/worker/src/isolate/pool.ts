import { HandlerCrashedError, InvalidArgumentError, JobsError, JOBS_ERROR_CODES, TimeoutError, type ChildEnd, type Logger } from '@jobs/core';
import type { Clock, TimerHandle } from '../clock.ts';
import type { JobContext } from '../handler-map.ts';
import { startChild, type ChildHandle, type ChildListeners, type ChildOptions } from './child-handle.ts';
import type { Isolation } from './child-source.ts';
import { rebuildError, toRecord } from './error-rebuild.ts';
import { callContext, contextValues } from './forwarding.ts';
import type { ToParent } from './protocol.ts';

/** A kind's isolation, checked and with its defaults (see handler-check.ts). */
export interface PoolOptions {
  readonly kind: string;
  readonly isolation: Isolation;
  /** The handler module's `file:` URL. */
  readonly moduleUrl: string;
  /** The most children at once. */
  readonly size: number;
  readonly memoryMb: number | undefined;
  /** How long an aborted job's child may go on before it is ended (ms). */
  readonly graceMs: number;
}

/** What a pool reports to and runs on. */
export interface PoolHost {
  readonly clock: Clock;
  readonly log: Logger;
  reportError(error: unknown, message: string): void;
  /** Starts a child (startChild, unless a test says otherwise). */
  readonly start?: (options: ChildOptions, listeners: ChildListeners) => ChildHandle;
}

/** One job handed to the pool: it waits for a child, then runs in it. */
interface PoolJob {
  readonly seq: number;
  readonly payload: unknown;
  readonly ctx: JobContext;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  /** The kind's timeout, counted from the job's start in a child, and what stops the attempt past it. */
  readonly timeout: { readonly ms: number; readonly stop: (reason: unknown) => void } | undefined;
  /** The timeout's timer, while the job runs in a child. */
  timer: TimerHandle | undefined;
  /** Set once the attempt was stopped: the execution reported it already, and the child's outcome is dropped. */
  aborted: boolean;
}

/** One child of the pool and what it is doing. */
interface PoolChild {
  handle: ChildHandle;
  /** `starting` until its module loaded; `idle`, or `busy` with `job`. */
  state: 'starting' | 'idle' | 'busy';
  job: PoolJob | undefined;
  /** Its last job, whose context a late call (a promise the handler left behind) still reaches. */
  last: PoolJob | undefined;
  /** Ends the child when an aborted job has not settled within the grace period. */
  grace: TimerHandle | undefined;
  /** Its module failed to load: that was reported, and its end says nothing more. */
  loadFailed: boolean;
}

/** The longest wait before a kind whose module failed to load starts a child again (ms). */
const MAX_RETRY_MS = 30_000;

/**
 * The children (threads or processes) that run one kind's jobs, one job each at a time: a job
 * waits for a free child (the worker keeps its lease meanwhile), children start when jobs need
 * them, up to `size`, and a dead one is replaced by the next job that needs one. An aborted job's
 * child is told (its `ctx.signal` aborts) and ended past `graceMs`; a child that dies running a
 * job fails the attempt with `JOBS_HANDLER_CRASHED`. A module that does not load fails the jobs
 * that wait and those that come for a while, doubling from 1 s, before a child is tried again.
 */
export class IsolatedPool {
  readonly #options: PoolOptions;
  readonly #host: PoolHost;
  readonly #children: PoolChild[] = [];
  readonly #waiting: PoolJob[] = [];
  #seq = 0;
  #closed = false;
  /** The last load failure, the failures in a row, and until when no child is started. */
  #failure: unknown;
  #failures = 0;
  #blockedUntil = 0;

  constructor(options: PoolOptions, host: PoolHost) {
    this.#options = options;
    this.#host = host;
  }

  /**
   * The handler of one job as the worker calls it: it settles with the child's outcome, and
   * past `timeoutMs` from the job's start in a child (the wait for one not counted), `stop`
   * stops the attempt with a `TimeoutError`.
   */
  handler(timeoutMs: number | undefined, stop: (reason: unknown) => void): (payload: unknown, ctx: JobContext) => Promise<unknown> {
    const timeout = timeoutMs === undefined ? undefined : { ms: timeoutMs, stop };
    return (payload, ctx) => this.run(payload, ctx, timeout);
  }

  /** Runs one job in a child (see {@link handler}); settles with the child's outcome. */
  run(payload: unknown, ctx: JobContext, timeout?: PoolJob['timeout']): Promise<unknown> {
    if (this.#closed) return Promise.reject(new JobsError(JOBS_ERROR_CODES.CLOSED, `the isolated handlers of kind "${this.#options.kind}" are closed`));
    const blocked = this.#blocked();
    if (blocked !== undefined) return Promise.reject(blocked);
    return new Promise((resolve, reject) => {
      const job: PoolJob = { seq: ++this.#seq, payload, ctx, resolve, reject, timeout, timer: undefined, aborted: false };
      const signal = ctx.signal;
      if (signal.aborted) return resolve(undefined);
      signal.addEventListener('abort', () => this.#abort(job, signal.reason), { once: true });
      this.#waiting.push(job);
      this.#pump();
    });
  }

  /** The children alive now (for tests and logs). */
  get children(): readonly ChildHandle[] {
    return this.#children.map((child) => child.handle);
  }

  /**
   * Ends every child: idle ones at once, busy ones when their job settles or their grace period
   * is over (the worker aborted their jobs when it handed them back). Jobs still waiting fail
   * with `JOBS_CLOSED`.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const closed = new JobsError(JOBS_ERROR_CODES.CLOSED, `the isolated handlers of kind "${this.#options.kind}" are closed`);
    for (const job of this.#waiting.splice(0)) job.reject(closed);
    for (const child of this.#children) {
      if (child.state !== 'busy' || child.grace === undefined) child.handle.terminate();
    }
    await Promise.all(this.#children.map((child) => child.handle.exited));
  }

  /** The load failure that keeps jobs from waiting: while no child may start and none is up. */
  #blocked(): unknown {
    if (this.#failures === 0 || this.#host.clock.now() >= this.#blockedUntil) return undefined;
    return this.#children.some((child) => child.state !== 'starting') ? undefined : this.#failure;
  }

  /** Gives waiting jobs to idle children, and starts children for those left, up to the pool's size. */
  #pump(): void {
    for (const child of this.#children) {
      if (this.#waiting.length === 0) return;
      if (child.state === 'idle') this.#assign(child, this.#waiting.shift() as PoolJob);
    }
    if (this.#closed || this.#waiting.length === 0 || this.#host.clock.now() < this.#blockedUntil) return;
    const starting = this.#children.filter((child) => child.state === 'starting').length;
    // After a load failure, one child tries again before others start.
    const room = this.#failures > 0 ? 1 - starting : this.#options.size - this.#children.length;
    for (let wanted = Math.min(this.#waiting.length - starting, room); wanted > 0; wanted -= 1) this.#start();
  }

  #start(): void {
    const child: PoolChild = { handle: undefined as unknown as ChildHandle, state: 'starting', job: undefined, last: undefined, grace: undefined, loadFailed: false };
    const { isolation, moduleUrl, memoryMb } = this.#options;
    try {
      child.handle = (this.#host.start ?? startChild)({ isolation, moduleUrl, memoryMb }, { message: (message) => this.#onMessage(child, message), exit: (end) => this.#onExit(child, end) });
    } catch (error) {
      this.#loadFailed(error);
      return;
    }
    this.#children.push(child);
  }

  #assign(child: PoolChild, job: PoolJob): void {
    child.state = 'busy';
    child.job = job;
    child.last = job;
    const timeout = job.timeout;
    if (timeout !== undefined) job.timer = this.#host.clock.setTimeout(() => timeout.stop(new TimeoutError(`job ${job.ctx.id} (${this.#options.kind})`, timeout.ms)), timeout.ms);
    child.handle.send({ t: 'run', seq: job.seq, payload: job.payload, ctx: contextValues(job.ctx) });
  }

  #onMessage(child: PoolChild, message: ToParent): void {
    if (message.t === 'call') {
      this.#call(child, message);
    } else if (message.t === 'done') {
      const job = child.job;
      if (job === undefined || job.seq !== message.seq) return;
      child.job = undefined;
      this.#host.clock.clearTimeout(job.timer);
      this.#host.clock.clearTimeout(child.grace);
      child.grace = undefined;
      if (this.#closed) child.handle.terminate();
      else child.state = 'idle';
      if (!job.aborted) {
        if (message.ok) job.resolve(message.value);
        else job.reject(rebuildError(message.error));
      }
      this.#pump();
    } else if (message.t === 'ready') {
      child.state = 'idle';
      this.#failures = 0;
      this.#pump();
    } else if (message.t === 'load-failed') {
      child.loadFailed = true;
      this.#loadFailed(rebuildError(message.error));
      child.handle.terminate();
    }
  }

  /** A context call of the child's (current or last) job, run on its real context; the reply goes back when one is wanted. */
  #call(child: PoolChild, message: Extract<ToParent, { t: 'call' }>): void {
    const job = child.job?.seq === message.seq ? child.job : child.last?.seq === message.seq ? child.last : undefined;
    const replied = new Promise<unknown>((resolve) => {
      if (job === undefined) throw new JobsError(JOBS_ERROR_CODES.LOST_CLAIM, 'the job of this call is over');
      resolve(callContext(job.ctx, message.method, message.args));
    });
    replied.then(
      (value) => {
        if (message.call !== 0) child.handle.send({ t: 'reply', call: message.call, ok: true, value });
      },
      (error: unknown) => {
        if (message.call !== 0) child.handle.send({ t: 'reply', call: message.call, ok: false, error: toRecord(error) });
        else this.#host.log.warn({ kind: this.#options.kind, err: String(error) }, `an isolated handler's ctx.${message.method} failed`);
      },
    );
  }

  /** The job's attempt was stopped: a waiting job leaves the queue; a running one's child is told, then ended past the grace period. */
  #abort(job: PoolJob, reason: unknown): void {
    job.aborted = true;
    this.#host.clock.clearTimeout(job.timer);
    // The execution has reported the abort: what this promise says is not heard.
    job.resolve(undefined);
    const at = this.#waiting.indexOf(job);
    if (at !== -1) {
      this.#waiting.splice(at, 1);
      return;
    }
    const child = this.#children.find((candidate) => candidate.job === job);
    if (child === undefined) return;
    child.handle.send({ t: 'abort', seq: job.seq, reason: toRecord(reason) });
    const end = (): void => {
      this.#host.log.warn({ kind: this.#options.kind, jobId: job.ctx.id, pid: child.handle.pid, threadId: child.handle.threadId, graceMs: this.#options.graceMs }, 'an aborted isolated handler did not stop within its grace period: its child is ended');
      child.handle.terminate();
    };
    if (this.#options.graceMs === 0) end();
    else child.grace = this.#host.clock.setTimeout(end, this.#options.graceMs);
  }

  #onExit(child: PoolChild, end: ChildEnd): void {
    const at = this.#children.indexOf(child);
    if (at !== -1) this.#children.splice(at, 1);
    this.#host.clock.clearTimeout(child.grace);
    const { kind, moduleUrl, isolation } = this.#options;
    this.#host.log.info({ kind, pid: child.handle.pid, threadId: child.handle.threadId, exitCode: end.exitCode, signal: end.signal, outOfMemory: end.outOfMemory }, 'an isolated handler child ended');
    const job = child.job;
    if (job !== undefined) this.#host.clock.clearTimeout(job.timer);
    if (job !== undefined && !job.aborted) job.reject(new HandlerCrashedError(kind, job.ctx.id, end));
    if (child.state === 'starting' && !child.loadFailed && !this.#closed) {
      this.#loadFailed(new InvalidArgumentError(`handlers.${kind}.module`, `${moduleUrl} could not be loaded in a ${isolation}: the child ended first (${describeEnd(end)})`));
    }
    this.#pump();
  }

  /** No child could load the module: the waiting jobs fail with why, and none starts for a while. */
  #loadFailed(raw: unknown): void {
    const { kind, moduleUrl, isolation } = this.#options;
    const error = raw instanceof InvalidArgumentError ? raw : new InvalidArgumentError(`handlers.${kind}.module`, `${moduleUrl} could not be loaded in a ${isolation}: ${raw instanceof Error ? raw.message : String(raw)}`);
    if (error !== raw) Object.defineProperty(error, 'cause', { value: raw, configurable: true, writable: true });
    this.#failure = error;
    this.#failures += 1;
    const waitMs = Math.min(MAX_RETRY_MS, 1_000 * 2 ** (this.#failures - 1));
    this.#blockedUntil = this.#host.clock.now() + waitMs;
    this.#host.reportError(error, `the isolated handler of kind "${kind}" could not start; its jobs fail until a child is tried again in ${waitMs} ms`);
    if (this.#children.some((child) => child.state !== 'starting')) return;
    for (const job of this.#waiting.splice(0)) job.reject(error);
  }
}

/** How a child ended, in words. */
function describeEnd(end: ChildEnd): string {
  const parts = [end.outOfMemory ? 'out of memory' : '', end.uncaught === undefined ? '' : `uncaught ${end.uncaught}`, end.signal === null ? '' : `killed by ${end.signal}`, end.exitCode === null ? '' : `exit code ${end.exitCode}`];
  return parts.filter((part) => part !== '').join(', ');
}
