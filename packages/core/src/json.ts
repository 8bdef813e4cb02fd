import { NotSerializableError, PayloadTooLargeError } from './errors.ts';

/**
 * Encodes `value` as JSON, refusing what JSON.stringify would silently change: `undefined`,
 * functions, symbols, bigints, NaN and ±Infinity (they become null), cycles, and objects that
 * are not plain (a Date becomes a string, a Map `{}`). So what a worker parses is exactly what
 * the producer passed. Throws {@link NotSerializableError} with the JSON pointer of the first bad
 * value, or {@link PayloadTooLargeError} when the JSON is over `maxBytes`.
 */
export function encodeJson(value: unknown, field: string, maxBytes = Number.POSITIVE_INFINITY): string {
  assertJsonValue(value, field);
  return assertJsonSize(JSON.stringify(value), field, maxBytes);
}

/** Throws {@link NotSerializableError} unless `value` is plain JSON (see {@link encodeJson}). */
export function assertJsonValue(value: unknown, field: string): void {
  assertPlainJson(value, field, [], new Set());
}

/** Returns `json`, or throws {@link PayloadTooLargeError} when it is over `maxBytes` of UTF-8. */
export function assertJsonSize(json: string, field: string, maxBytes: number): string {
  // UTF-8 needs at most 3 bytes per UTF-16 unit: skip the count when the limit cannot be reached.
  if (json.length * 3 <= maxBytes) return json;
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) throw new PayloadTooLargeError(field, bytes, maxBytes);
  return json;
}

function pointerPart(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The JSON pointer of `path` under `field`: built only for an error message. */
function where(field: string, path: readonly (string | number)[]): string {
  return `${field}${path.map((key) => `/${pointerPart(key)}`).join('')}`;
}

function assertPlainJson(value: unknown, field: string, path: (string | number)[], ancestors: Set<object>): void {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new NotSerializableError(where(field, path), `${value} has no JSON form`);
      return;
    case 'undefined':
      throw new NotSerializableError(where(field, path), 'undefined has no JSON form (omit the property instead)');
    case 'object':
      break;
    default:
      throw new NotSerializableError(where(field, path), `a ${typeof value} has no JSON form`);
  }
  if (value === null) return;
  if (ancestors.has(value)) throw new NotSerializableError(where(field, path), 'it contains a cycle');
  ancestors.add(value);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      path.push(index);
      assertPlainJson(value[index], field, path, ancestors);
      path.pop();
    }
  } else {
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      const name = (value as { constructor?: { name?: string } }).constructor?.name ?? 'object';
      throw new NotSerializableError(where(field, path), `a ${name} is not a plain object (convert it, e.g. a Date to an ISO string)`);
    }
    for (const key of Object.keys(value)) {
      path.push(key);
      assertPlainJson((value as Record<string, unknown>)[key], field, path, ancestors);
      path.pop();
    }
  }
  ancestors.delete(value);
}
