import type { Logger } from '@jobs/core';
import { defineKinds } from '../src/index.ts';

/** The isolation tests' handler module (see fixtures/isolate/handlers.mjs). */
export const HANDLERS = new URL('./fixtures/isolate/handlers.mjs', import.meta.url);

const work = { type: 'object', properties: { do: { type: 'string' }, ms: { type: 'integer' }, image: { type: 'string' } }, required: ['do'] } as const;

/** The kinds of the isolation tests: `work` with no timeout, `timed` with a short one. */
export const isolatedKinds = defineKinds({
  work: { schema: work, maxAttempts: 3, backoff: { type: 'fixed', delayMs: 0 } },
  timed: { schema: work, maxAttempts: 2, timeoutMs: 400, backoff: { type: 'fixed', delayMs: 0 } },
});

/** One line the worker logged. */
export interface LoggedLine {
  readonly level: string;
  readonly fields: Record<string, unknown>;
  readonly message: string | undefined;
}

/** A logger that keeps every line, for tests that read what the worker (and its children) logged. */
export function capturingLogger(): { logger: Logger; lines: LoggedLine[]; withMessage(message: string): LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const at =
    (level: string) =>
    (fields: object, message?: string): void => {
      lines.push({ level, fields: fields as Record<string, unknown>, message });
    };
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines, withMessage: (message) => lines.filter((line) => line.message === message) };
}

/** True while a process of that id lives. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
