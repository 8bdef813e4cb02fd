import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestRedis } from './open-redis.ts';
import { isScriptCall, openProxiedRedis, type CommandMatch, type ProxiedCommand } from './redis-proxy.ts';

/** What {@link killOperatorAt} has its operator do, in batches of one. */
export interface KilledOperation {
  /** `resume` resumes `kind`; `retry-all` redrives every failed job. */
  operation: 'resume' | 'retry-all';
  queue: string;
  kind: string;
  /** The calls counted on the way to Redis. */
  match: CommandMatch;
  /** The matching call held for good, the operator being SIGKILLed once it is sent. */
  nth: number;
}

/** A call of the pause script's unpark step: one batch of a resume. */
export function isUnparkCall(command: ProxiedCommand): boolean {
  return isScriptCall(command) && command.includes('unpark');
}

const MOVER = fileURLToPath(new URL('../fixtures/move-in-batches.mjs', import.meta.url));

/**
 * Runs an operator's process (tools/testing/fixtures/move-in-batches.mjs) through a loopback
 * proxy, holds its `nth` matching call so that it never reaches Redis, and SIGKILLs the process
 * there: what the calls before it did stays done, the rest is left for a sweep or a retry. The
 * process resolves @jobs/core from the calling test's package (the working directory).
 */
export async function killOperatorAt(redisUrl: string, through: TestRedis, at: KilledOperation): Promise<void> {
  const proxied = await openProxiedRedis(redisUrl, through);
  try {
    const held = proxied.proxy.holdBefore(at.match, at.nth);
    const child = spawn(process.execPath, [MOVER], {
      env: { ...process.env, ...proxied.childEnv, QUEUE: at.queue, KIND: at.kind, OPERATION: at.operation },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await held;
    child.kill('SIGKILL');
    const signal = await exited;
    if (signal !== 'SIGKILL') throw new Error(`the operator's process ended on its own (${signal ?? 'exit'}) before call ${at.nth} was held`);
  } finally {
    proxied.redis.disconnect();
    await proxied.proxy.close();
  }
}
