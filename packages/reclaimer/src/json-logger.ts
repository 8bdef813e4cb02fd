import type { Logger } from '@jobs/core';

/** Log levels, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** A log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * A {@link Logger} that writes one JSON object per line (`time`, `level`, `msg`, then the
 * fields), what log shippers expect from a daemon. Lines below `level` are dropped.
 */
export function jsonLogger(options: { level?: LogLevel; write?: (line: string) => void; bindings?: Record<string, unknown> } = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level ?? 'info');
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const bindings = options.bindings ?? {};
  const logger = {} as Logger;
  for (const level of LOG_LEVELS) {
    logger[level] =
      LOG_LEVELS.indexOf(level) < threshold
        ? () => undefined
        : (fields: object, message?: string) => write(`${JSON.stringify({ time: new Date().toISOString(), level, msg: message ?? '', ...bindings, ...fields })}\n`);
  }
  logger.child = (more) => jsonLogger({ ...options, bindings: { ...bindings, ...more } });
  return logger;
}
