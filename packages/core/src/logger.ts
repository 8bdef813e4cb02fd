/**
 * Where structured logs go (the worker's, the reclaimer's): pino, or anything with its shape
 * (`info(fields, message)`). The default is silent.
 */
export interface Logger {
  debug(fields: object, message?: string): void;
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
  /** A logger that adds `bindings` to every line (pino's `child`). Optional. */
  child?(bindings: Record<string, unknown>): Logger;
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** A logger that writes nothing. */
export const silentLogger: Logger = Object.freeze({ debug() {}, info() {}, warn() {}, error() {} });

/** `logger` with `bindings` on every line: its own `child()` when it has one. */
export function childLogger(logger: Logger, bindings: Record<string, unknown>): Logger {
  if (typeof logger.child === 'function') return logger.child(bindings);
  const child = {} as Logger;
  for (const level of LEVELS) child[level] = (fields: object, message?: string) => logger[level]({ ...bindings, ...fields }, message);
  return child;
}
