import { HttpError } from './http-io.ts';
import type { JobQuery } from './job-search.ts';

/** The filters of the jobs list beyond kind and payload field, as the page sends them. */
type SearchFilters = Pick<JobQuery, 'code' | 'id' | 'text' | 'fromMs' | 'toMs'>;

const CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

function textParam(params: URLSearchParams, name: string, max: number): string | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw.length > max) throw new HttpError(400, 'bad_query', `${name} may have at most ${max} characters`, name);
  return raw;
}

function timeParam(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw === '') return undefined;
  const value = Number(raw);
  if (!/^\d{1,16}$/.test(raw) || value > 8.64e15) throw new HttpError(400, 'bad_query', `${name} must be a time in Unix milliseconds`, name);
  return value;
}

/**
 * The jobs list's search filters from a request's query: `code` (an error code), `id` (text in
 * the id), `text` (text in the payload), `from` and `to` (Unix ms, the job's time in its state).
 * Each is checked: a bad one is a 400 `bad_query` naming it, and nothing is read.
 */
export function searchFilters(params: URLSearchParams): SearchFilters {
  const code = textParam(params, 'code', 64);
  if (code !== undefined && !CODE.test(code)) throw new HttpError(400, 'bad_query', 'code must be an error code: letters, digits and _ . : -', 'code');
  const id = textParam(params, 'id', 128);
  const text = textParam(params, 'text', 256);
  const fromMs = timeParam(params, 'from');
  const toMs = timeParam(params, 'to');
  if (fromMs !== undefined && toMs !== undefined && fromMs > toMs) throw new HttpError(400, 'bad_query', 'from must not be after to', 'from');
  return { ...(code !== undefined && { code }), ...(id !== undefined && { id }), ...(text !== undefined && { text }), ...(fromMs !== undefined && { fromMs }), ...(toMs !== undefined && { toMs }) };
}
