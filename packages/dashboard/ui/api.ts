// Talks to the dashboard's JSON API under the base path. Every action carries the session's
// CSRF token; the browser adds the Origin header the server checks.

/** The path the dashboard is mounted under (`''` at the root), from the page's meta tag. */
export const BASE = document.querySelector('meta[name="jobs-base-path"]')?.getAttribute('content') ?? '';

/** An answer that was not a success: its HTTP status and the server's message. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let csrfToken = '';

/** Sets the token every POST carries. */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

async function read<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
  if (response.status === 401) {
    window.location.assign(`${BASE}/login`);
    throw new ApiError(401, 'signed_out', 'signed out');
  }
  if (!response.ok) throw new ApiError(response.status, body.error?.code ?? 'error', body.error?.message ?? `HTTP ${response.status}`);
  return body as T;
}

/** The query string of `query`, leaving out empty values. */
export function queryString(query: Readonly<Record<string, string | number | undefined>>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** GETs an API path (`api/...`, under the base path) with query parameters. */
export async function get<T>(path: string, query: Readonly<Record<string, string | number | undefined>> = {}): Promise<T> {
  return read<T>(await fetch(`${BASE}/${path}${queryString(query)}`, { headers: { accept: 'application/json' }, credentials: 'same-origin' }));
}

/** POSTs a JSON body to an action. */
export async function post<T>(path: string, body: Readonly<Record<string, unknown>> = {}): Promise<T> {
  return read<T>(
    await fetch(`${BASE}/${path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrfToken },
      body: JSON.stringify(body),
    }),
  );
}

/** The API path of a queue, with its name (and the rest's parts) encoded by the caller. */
export function queuePath(queue: string, rest: string): string {
  return `api/queues/${encodeURIComponent(queue)}/${rest}`;
}

/** The API path of a job. */
export function jobPath(queue: string, id: string, rest = ''): string {
  return queuePath(queue, `jobs/${encodeURIComponent(id)}${rest ? `/${rest}` : ''}`);
}
