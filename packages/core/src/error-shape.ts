/**
 * The one form a job's error takes wherever it is read (`JobRecord.error`, each attempt of
 * `queue.attempts(id)`, the dashboard): its code, its message, its stack and its cause, nested
 * the same way. The hash keeps `last_error` as a plain message (what recipe clients read and
 * write) and this form beside it, in `last_error_json`.
 */
export interface ErrorShape {
  /** Its stable code: the error's string `code`, else its class name when not plain `Error`. */
  readonly code?: string;
  /** Its message, with its class name in front when not plain `Error` (what `last_error` holds). */
  readonly message: string;
  /** Its stack, cut to the queue's `attemptHistory.stackBytes`; absent when that is 0. */
  readonly stack?: string;
  /** What caused it (its `cause`), in the same form, at most {@link ERROR_CAUSE_DEPTH} deep. */
  readonly cause?: ErrorShape;
}

/** How many causes deep an {@link ErrorShape} goes: a deeper cause is left out. */
export const ERROR_CAUSE_DEPTH = 3;

/** Longest message stored, in characters. */
const MAX_ERROR_CHARS = 4_096;
/** Longest code stored, in characters. */
const MAX_CODE_CHARS = 64;

/** What a failed attempt's error is stored as in `last_error`: its name and message, cut to 4096 characters. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? (error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message) : String(error);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}...` : text;
}

/** The error's code for the event log: its string `code`, else its name (at most 64 characters). */
export function errorCode(error: unknown): string {
  const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : error instanceof Error ? error.name : '';
  return code.slice(0, MAX_CODE_CHARS);
}

/** `text` cut to at most `bytes` bytes of UTF-8, never inside a character. */
export function clipUtf8(text: string, bytes: number): string {
  if (text.length * 3 <= bytes) return text;
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= bytes) return text;
  let end = bytes;
  // Back to the first byte of a character (continuation bytes are 10xxxxxx).
  while (end > 0 && ((encoded[end] as number) & 0xc0) === 0x80) end -= 1;
  return encoded.subarray(0, end).toString('utf8');
}

/** `error` (anything thrown) in the one error form, its stacks cut to `stackBytes` (0: none). */
export function errorShape(error: unknown, stackBytes: number, depth = 0): ErrorShape {
  const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : error instanceof Error && error.name !== 'Error' ? error.name : '';
  const stack = error instanceof Error && typeof error.stack === 'string' && stackBytes > 0 ? clipUtf8(error.stack, stackBytes) : '';
  const cause = error instanceof Error && error.cause !== undefined && error.cause !== null && depth < ERROR_CAUSE_DEPTH ? errorShape(error.cause, stackBytes, depth + 1) : undefined;
  return {
    ...(code !== '' ? { code: code.slice(0, MAX_CODE_CHARS) } : {}),
    message: errorText(error),
    ...(stack !== '' ? { stack } : {}),
    ...(cause !== undefined ? { cause } : {}),
  };
}

/** A stored error form read back: only the fields of {@link ErrorShape}, of the right types, `depth` causes deep at most. */
export function readErrorShape(value: unknown, depth = 0): ErrorShape | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { code, message, stack, cause } = value as Record<string, unknown>;
  if (typeof message !== 'string') return undefined;
  const inner = depth < ERROR_CAUSE_DEPTH ? readErrorShape(cause, depth + 1) : undefined;
  return {
    ...(typeof code === 'string' && code !== '' ? { code } : {}),
    message,
    ...(typeof stack === 'string' && stack !== '' ? { stack } : {}),
    ...(inner !== undefined ? { cause: inner } : {}),
  };
}

/**
 * A job's last error from its hash: the stored form when it goes with the `last_error` there
 * (its message is that text), else `last_error` alone as `{ message }`: a recipe client writes
 * only that, and a form left from an earlier attempt does not describe a later one.
 */
export function storedError(lastError: string | undefined, json: string | undefined): ErrorShape | undefined {
  if (lastError === undefined || lastError === '') return undefined;
  if (json !== undefined && json !== '') {
    try {
      const shape = readErrorShape(JSON.parse(json));
      if (shape !== undefined && shape.message === lastError) return shape;
    } catch {
      // Not JSON (a hand-written field): the message alone.
    }
  }
  return { message: lastError };
}
