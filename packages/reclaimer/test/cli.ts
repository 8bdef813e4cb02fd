import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@jobs/testing';

/** The built CLIs (the tests run what users run). */
export const BIN = {
  jobsctl: fileURLToPath(new URL('../dist/bin/jobsctl.js', import.meta.url)),
  reclaimer: fileURLToPath(new URL('../dist/bin/jobs-reclaimer.js', import.meta.url)),
};

/** Runs a CLI to the end. */
export function runCli(bin: string, args: readonly string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, REDIS_URL: undefined, JOBS_QUEUE: undefined, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A long-running CLI (the daemon) and its JSON log lines. */
export interface Daemon {
  readonly process: ChildProcess;
  /** Every JSON log line so far. */
  logs(): Record<string, unknown>[];
  stderr(): string;
  /** Resolves with the first log line `match` accepts. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves with the exit code when the process ends by itself. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `jobs-reclaimer` with `args`. */
export function startDaemon(args: readonly string[], env: Record<string, string | undefined> = {}): Daemon {
  const child = spawn(process.execPath, [BIN.reclaimer, ...args], { env: { ...process.env, REDIS_URL: undefined, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const logs = (): Record<string, unknown>[] =>
    out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    process: child,
    exited,
    logs,
    stderr: () => err,
    waitForLog: (match, timeoutMs = 15_000) => waitFor(() => logs().find(match), { timeoutMs, what: `a daemon log line (stdout: ${out.slice(-400)}, stderr: ${err.slice(-400)})` }),
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
