// Talks to the dashboard's JSON API. Every action carries the session's CSRF token; the
// browser adds the Origin header the server checks.

/** An answer that was not a success: its HTTP status and the server's message. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let csrfToken = '';

/** @param {string} token */
export function setCsrfToken(token) {
  csrfToken = token;
}

/**
 * @param {Response} response
 * @returns {Promise<any>}
 */
async function read(response) {
  const body = await response.json().catch(() => ({}));
  if (response.status === 401) {
    window.location.assign('login');
    throw new ApiError(401, 'signed_out', 'signed out');
  }
  if (!response.ok) throw new ApiError(response.status, body?.error?.code ?? 'error', body?.error?.message ?? `HTTP ${response.status}`);
  return body;
}

/**
 * GETs a JSON API path (relative to the page), with query parameters.
 * @param {string} path
 * @param {Record<string, string | number | undefined>} [query]
 */
export async function get(path, query = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, String(value));
  const search = params.toString();
  return read(await fetch(search ? `${path}?${search}` : path, { headers: { accept: 'application/json' }, credentials: 'same-origin' }));
}

/**
 * POSTs a JSON body to an action.
 * @param {string} path
 * @param {Record<string, unknown>} [body]
 */
export async function post(path, body = {}) {
  return read(
    await fetch(path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': csrfToken },
      body: JSON.stringify(body),
    }),
  );
}

/**
 * The API path of a queue, with its name encoded.
 * @param {string} queue
 * @param {string} rest
 */
export function queuePath(queue, rest) {
  return `api/queues/${encodeURIComponent(queue)}/${rest}`;
}
