import type { Logger } from '@jobs/core';
import { assertOptionKeys, stripCommandArgs, toJobsError } from '@jobs/core/internal';
import { pino } from 'pino';

/** Log levels, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Options of {@link jsonLogger}. */
export interface JsonLoggerOptions {
  /** Lines below this level are dropped. Default `info`. */
  level?: LogLevel;
  /** Where each line goes. Default: `process.stdout` (synchronous to files and pipes on Linux, so no line is lost at exit). */
  write?: (line: string) => void;
  /** Fields on every line. */
  bindings?: Record<string, unknown>;
}

/**
 * A pino {@link Logger} that writes one JSON object per line, what log shippers expect from a
 * daemon: `level` as a name, `time` in ISO 8601, `msg`, then the fields. An error goes under
 * `err` (as the worker logs it) and is written with its type, message, code and stack; a Redis
 * error is typed first (see `toJobsError`), and no command's arguments are written, in `err` or
 * in its causes (a failed HELLO's hold the password).
 */
export function jsonLogger(options: JsonLoggerOptions = {}): Logger {
  assertOptionKeys<JsonLoggerOptions>('options', options, { level: true, write: true, bindings: true });
  const settings = {
    level: options.level ?? 'info',
    base: { pid: process.pid, ...options.bindings },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
    serializers: { err: safeError },
  };
  const stream = options.write ? { write: options.write } : process.stdout;
  return pino(settings, stream);
}

/** pino's error serializer, over the typed error, with what ioredis attached to it and its causes cut down to the command's name. */
function safeError(error: unknown): unknown {
  const serialized: unknown = pino.stdSerializers.err(toJobsError(error) as Error);
  stripCommandArgs(serialized);
  return serialized;
}
