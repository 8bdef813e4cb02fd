import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { killOnExit } from '@jobs/dev-redis';
import { isChildMessage, type ChildMessage, type ParentMessage } from './protocol.ts';

/**
 * The child entry, always the built one: from `src` (under vitest) and from `dist` alike, a
 * plain Node process can run it without a TypeScript loader.
 */
export const WORKER_ENTRY = fileURLToPath(new URL('../../dist/scale/worker-process.js', import.meta.url));

/** What one child is: its process, whether it exited, and a promise of its exit. */
interface Child {
  process: ChildProcess;
  exited: Promise<void>;
  hasExited: boolean;
}

/**
 * The P worker processes of one run. The parent waits for all to be ready, sends `go` to all,
 * hears their completions, and stops them; {@link kill} (in a `finally`) ends any still alive.
 */
export class WorkerProcesses {
  readonly #children: Child[];
  /** Why the run cannot go on: a child failed or exited early. Rejects every wait below. */
  readonly #failed: Promise<never>;
  #fail: (error: Error) => void = () => undefined;
  readonly #stopped = new Map<ChildProcess, NodeJS.CpuUsage>();
  readonly #ready = new Set<ChildProcess>();
  readonly #readyWaiters = new Map<ChildProcess, () => void>();
  readonly #stopWaiters = new Map<ChildProcess, () => void>();

  /**
   * Forks `count` children running `system`'s workers at `concurrency` each on `queue`;
   * `onDone` hears each batch of completed job ids.
   */
  constructor(count: number, args: { system: string; redisUrl: string; queue: string; concurrency: number; warmup: number }, onDone: (ids: readonly number[]) => void) {
    if (!existsSync(WORKER_ENTRY)) throw new Error(`${WORKER_ENTRY} is missing: build @jobs/bench first`);
    this.#failed = new Promise<never>((_, reject) => {
      this.#fail = reject;
    });
    // Seen by the waits that race it; unobserved it would be an unhandled rejection.
    this.#failed.catch(() => undefined);
    this.#children = Array.from({ length: count }, (_, index) => {
      // No inherited execArgv: a test runner's loader flags are not the child's business.
      const child = fork(WORKER_ENTRY, [args.system, args.redisUrl, args.queue, String(args.concurrency), String(args.warmup)], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      // Last resort: a parent that exits (even through `process.exit`) takes its children with it.
      killOnExit(child);
      const entry: Child = { process: child, hasExited: false, exited: Promise.resolve() };
      entry.exited = new Promise<void>((resolve) => {
        // 'close', not 'exit': it comes after the IPC channel closed, so after the child's last message.
        child.once('close', (code, signal) => {
          entry.hasExited = true;
          if (!this.#stopped.has(child)) this.#fail(new Error(`${args.system} worker process ${index + 1}/${count} exited (code ${code}, signal ${signal}) before it was stopped`));
          resolve();
        });
      });
      child.on('error', (error) => this.#fail(error));
      child.on('message', (message: unknown) => {
        if (!isChildMessage(message)) return;
        this.#heard(child, message, onDone, `${args.system} worker process ${index + 1}/${count}`);
      });
      return entry;
    });
  }

  /** The children's process ids. */
  get pids(): number[] {
    return this.#children.map((child) => child.process.pid ?? -1);
  }

  #heard(child: ChildProcess, message: ChildMessage, onDone: (ids: readonly number[]) => void, label: string): void {
    switch (message.type) {
      case 'ready':
        this.#ready.add(child);
        this.#readyWaiters.get(child)?.();
        break;
      case 'done':
        onDone(message.ids);
        break;
      case 'stopped':
        this.#stopped.set(child, message.cpu);
        this.#stopWaiters.get(child)?.();
        break;
      case 'failed':
        this.#fail(new Error(`${label} failed: ${message.message}`));
        break;
    }
  }

  /** Resolves once every child's workers are started paused; rejects if one fails first. */
  async ready(): Promise<void> {
    const each = this.#children.map(
      ({ process: child }) =>
        new Promise<void>((resolve) => {
          if (this.#ready.has(child)) resolve();
          else this.#readyWaiters.set(child, resolve);
        }),
    );
    await Promise.race([Promise.all(each), this.#failed]);
  }

  /** Tells every child to start claiming. */
  go(): void {
    for (const { process: child } of this.#children) this.#send(child, { type: 'go' });
  }

  /** Rejects when a child fails or exits early: for a wait that must not outlast the run. */
  get failure(): Promise<never> {
    return this.#failed;
  }

  /**
   * Stops every child and resolves with the CPU each used from `go` to `stop` (its close left
   * out), once all have exited.
   */
  async stop(): Promise<NodeJS.CpuUsage[]> {
    const each = this.#children.map(
      ({ process: child, exited }) =>
        new Promise<void>((resolve) => {
          this.#stopWaiters.set(child, resolve);
          this.#send(child, { type: 'stop' });
        }).then(() => exited),
    );
    await Promise.race([Promise.all(each), this.#failed]);
    return this.#children.map(({ process: child }) => this.#stopped.get(child) as NodeJS.CpuUsage);
  }

  /** Kills (SIGKILL) every child still alive and resolves once all have exited. Safe to call twice. */
  async kill(): Promise<void> {
    for (const child of this.#children) if (!child.hasExited) child.process.kill('SIGKILL');
    await Promise.all(this.#children.map((child) => child.exited));
  }

  #send(child: ChildProcess, message: ParentMessage): void {
    if (child.connected) child.send(message);
  }
}
