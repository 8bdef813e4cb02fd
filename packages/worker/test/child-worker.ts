import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@jobs/testing';

const script = fileURLToPath(new URL('./fixtures/worker-process.mjs', import.meta.url));

/** A worker service running in a child process (the built package), and what it printed. */
export interface ChildWorker {
  readonly process: ChildProcess;
  output(): string;
  /** Resolves when the output contains `text`. */
  waitForOutput(text: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Writes `line` to its stdin (the fixture's gated jobs read "release <id>" there: start it with GATED=1). */
  send(line: string): void;
  exited: Promise<number | null>;
}

/** Starts the fixture worker with `env` (REDIS_URL, QUEUE, VISIBILITY_MS...). */
export async function startChildWorker(env: Record<string, string>): Promise<ChildWorker> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env }, stdio: [env.GATED === '1' ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const worker: ChildWorker = {
    process: child,
    output: () => out,
    exited,
    send: (line) => void child.stdin?.write(`${line}\n`),
    waitForOutput: (text, timeoutMs = 10_000) =>
      waitFor(() => {
        const match = typeof text === 'string' ? out.includes(text) && text : text.exec(out)?.[0];
        return match || undefined;
      }, { timeoutMs, what: `worker output ${String(text)} (got: ${out.slice(-500)})` }),
  };
  await worker.waitForOutput('ready');
  return worker;
}
