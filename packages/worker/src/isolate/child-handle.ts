import { spawn } from 'node:child_process';
import { Worker as Thread } from 'node:worker_threads';
import type { ChildEnd } from '@jobs/core';
import { childSource, type Isolation } from './child-source.ts';
import type { ToChild, ToParent } from './protocol.ts';

/** What a child is started with. */
export interface ChildOptions {
  readonly isolation: Isolation;
  readonly moduleUrl: string;
  /** The child's heap limit (MB), or Node's default. */
  readonly memoryMb: number | undefined;
}

/** One running child, thread or process, behind one interface. */
export interface ChildHandle {
  /** The process id of a process child. */
  readonly pid: number | undefined;
  /** The thread id of a thread child. */
  readonly threadId: number | undefined;
  /** Sends `message`; a child that is gone drops it (its exit is reported). */
  send(message: ToChild): void;
  /** Ends the child at once (worker_threads' terminate, SIGKILL). */
  terminate(): void;
  /** Settles once the child has ended and its end was reported. */
  readonly exited: Promise<void>;
}

/** Where a child's messages and its end go. */
export interface ChildListeners {
  message(message: ToParent): void;
  exit(end: ChildEnd): void;
}

/** The last bytes of a process child's stderr kept, to tell an out-of-memory end. */
const STDERR_TAIL = 4_096;
/** What V8 prints when a heap is over its limit. */
const OUT_OF_MEMORY = /heap out of memory|Reached heap limit/;

/** Starts a child running the handler module of `options`. */
export function startChild(options: ChildOptions, listeners: ChildListeners): ChildHandle {
  return options.isolation === 'thread' ? startThread(options, listeners) : startProcess(options, listeners);
}

function describeUncaught(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function startThread(options: ChildOptions, listeners: ChildListeners): ChildHandle {
  const thread = new Thread(childSource('thread', options.moduleUrl), {
    eval: true,
    ...(options.memoryMb !== undefined && { resourceLimits: { maxOldGenerationSizeMb: options.memoryMb } }),
  });
  let uncaught: string | undefined;
  let outOfMemory = false;
  let ended = false;
  thread.on('message', (message: ToParent) => listeners.message(message));
  thread.on('error', (error: Error & { code?: string }) => {
    if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') outOfMemory = true;
    else uncaught = describeUncaught(error);
  });
  const exited = new Promise<void>((resolve) => {
    thread.once('exit', (exitCode) => {
      ended = true;
      listeners.exit({ exitCode, signal: null, outOfMemory, uncaught });
      resolve();
    });
  });
  return {
    pid: undefined,
    threadId: thread.threadId,
    send: (message) => {
      if (!ended) thread.postMessage(message);
    },
    terminate: () => void thread.terminate(),
    exited,
  };
}

/** The worker's own Node flags a process child runs with too, less those that would clash (a debugger's port, a heap limit). */
function inheritedFlags(): string[] {
  return process.execArgv.filter((flag) => !/^--(inspect|debug|max-old-space-size|input-type|eval|print)/.test(flag));
}

function startProcess(options: ChildOptions, listeners: ChildListeners): ChildHandle {
  const flags = [...inheritedFlags(), ...(options.memoryMb === undefined ? [] : [`--max-old-space-size=${options.memoryMb}`])];
  const child = spawn(process.execPath, [...flags, '-e', childSource('process', options.moduleUrl)], {
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    serialization: 'advanced',
  });
  let tail = '';
  let uncaught: string | undefined;
  let ended = false;
  child.stderr?.on('data', (chunk: Buffer) => {
    // The child's stderr is the worker's, as with an inherited one; only its tail is kept.
    process.stderr.write(chunk);
    tail = (tail + chunk.toString()).slice(-STDERR_TAIL);
  });
  child.on('message', (message: ToParent) => {
    if (message.t === 'uncaught') uncaught = describeUncaught(message.error.error ? Object.assign(new Error(message.error.message), { name: message.error.name }) : message.error.value);
    else listeners.message(message);
  });
  const exited = new Promise<void>((resolve) => {
    const end = (exitCode: number | null, signal: string | null): void => {
      if (ended) return;
      ended = true;
      listeners.exit({ exitCode, signal, outOfMemory: OUT_OF_MEMORY.test(tail), uncaught });
      resolve();
    };
    // 'close' comes once stderr is drained too, so its tail is complete.
    child.once('close', end);
    child.once('error', (error) => {
      uncaught ??= describeUncaught(error);
      if (child.exitCode !== null || child.pid === undefined) end(child.exitCode, null);
    });
  });
  return {
    pid: child.pid,
    threadId: undefined,
    send: (message) => {
      if (ended || !child.connected) return;
      child.send(message, (error) => {
        // Gone meanwhile: its end is reported.
        void error;
      });
    },
    terminate: () => {
      if (!ended) child.kill('SIGKILL');
    },
    exited,
  };
}
