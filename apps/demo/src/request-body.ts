import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.ts';

const MAX_BODY_BYTES = 64 * 1024;

/**
 * Reads a POST body: `application/x-www-form-urlencoded` (the recipe demo's forms; the first
 * value of a repeated field wins, as in the Python and Node ports) or `application/json`.
 * Anything else is refused, which also keeps cross-site "simple" text/plain posts out.
 */
export async function readBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `the request body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.length === 0) return {};
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new HttpError(400, `the body is not JSON: ${(error as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new HttpError(400, 'the body must be a JSON object');
    return parsed as Record<string, unknown>;
  }
  if (type === 'application/x-www-form-urlencoded' || type === '') {
    const form: Record<string, string> = {};
    for (const [key, value] of new URLSearchParams(text)) if (!(key in form)) form[key] = value;
    return form;
  }
  throw new HttpError(415, `unsupported content type ${JSON.stringify(type)}: send a form or JSON`);
}

/** A number field: the default when absent or blank, clamped to [min, max]; 400 when not a number. */
export function numberField(body: Record<string, unknown>, name: string, fallback: number, min: number, max: number, integer = true): number {
  const raw = body[name];
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = typeof raw === 'number' ? raw : Number(String(raw).trim());
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new HttpError(400, `${name} must be ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}`, { field: name });
  }
  return Math.min(max, Math.max(min, value));
}

/** A string field, at most `maxLength` characters; 400 otherwise. */
export function stringField(body: Record<string, unknown>, name: string, fallback: string, maxLength: number): string {
  const raw = body[name];
  if (raw === undefined || raw === null || raw === '') return fallback;
  if (typeof raw !== 'string') throw new HttpError(400, `${name} must be a string`, { field: name });
  if (raw.length > maxLength) throw new HttpError(400, `${name} must be at most ${maxLength} characters`, { field: name });
  return raw;
}

/** A boolean field: true/false, 1/0, on/off; 400 otherwise. */
export function booleanField(body: Record<string, unknown>, name: string): boolean {
  const raw = body[name];
  if (raw === true || raw === false) return raw;
  const text = String(raw ?? '').toLowerCase();
  if (['true', '1', 'on', 'yes'].includes(text)) return true;
  if (['false', '0', 'off', 'no'].includes(text)) return false;
  throw new HttpError(400, `${name} must be true or false`, { field: name });
}
