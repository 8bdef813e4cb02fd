import { spawn, type ChildProcess } from 'node:child_process';

/** How a command ended, with everything it printed. */
export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runCommand} and {@link startCommand}. */
export interface CommandOptions {
  cwd: string;
  /** The whole environment of the command (nothing is inherited that is not in it). */
  env: NodeJS.ProcessEnv;
  /** Past this the command is killed and the result says so. Default 120 s. */
  timeoutMs?: number;
}

/** A command left running: what it has printed so far, and how it ended once it has. */
export interface RunningCommand {
  child: ChildProcess;
  /** stdout and stderr so far, interleaved as they arrived. */
  output(): string;
  /** Resolves when the command has exited (never rejects). */
  exited: Promise<CommandResult>;
  /** Resolves with the first match of `pattern` in the output; rejects if the command exits first or after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Sends SIGTERM (if still running) and waits for the exit. */
  stop(): Promise<CommandResult>;
}

/**
 * Starts `command` and collects its output; a command still running after its deadline is
 * killed (SIGKILL), so a hung example fails its test instead of hanging the run.
 */
export function startCommand(command: string, args: readonly string[], options: CommandOptions): RunningCommand {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let both = '';
  const listeners = new Set<() => void>();
  const onData = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    if (stream === 'stdout') stdout += text;
    else stderr += text;
    both += text;
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData('stdout'));
  child.stderr?.on('data', onData('stderr'));
  const deadline = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  const exited = new Promise<CommandResult>((resolve) => {
    child.on('error', (error) => {
      stderr += `${error.message}\n`;
    });
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      for (const listener of listeners) listener();
      resolve({ code, signal, stdout, stderr });
    });
  });
  let done = false;
  void exited.then(() => {
    done = true;
  });
  return {
    child,
    output: () => both,
    exited,
    waitForOutput(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = both.match(pattern);
          if (match) finish(() => resolve(match));
          else if (done || child.exitCode !== null || child.signalCode !== null) {
            finish(() => reject(new Error(`${command} exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}; it printed:\n${both}`)));
          }
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`${command} did not print ${pattern} within ${timeoutMs} ms; it printed:\n${both}`))), timeoutMs);
        const finish = (settle: () => void): void => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs `command` to its end. */
export function runCommand(command: string, args: readonly string[], options: CommandOptions): Promise<CommandResult> {
  return startCommand(command, args, options).exited;
}

/** One line for an assertion message: the command's exit and what it printed. */
export function describeResult(result: CommandResult): string {
  return `exit ${result.code ?? result.signal}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}
