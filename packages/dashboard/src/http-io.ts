import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Headers on every answer: a Content-Security-Policy that lets the page run only the dashboard's
 * own script and style files (nothing inline, nothing from elsewhere, no framing), no MIME
 * sniffing, and a Referer sent to this origin only.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** An answer the routes give instead of a result: its status and the message the page shows. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  /** The part of the request that was wrong, when one was (`queue`, `id`...). */
  readonly field: string | undefined;
  constructor(status: number, code: string, message: string, field?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

/** A `%`-escaped part of a request's path, decoded; 400 `bad_path` (with the part's name) when an escape is malformed. */
export function decodePathPart(raw: string, field: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(400, 'bad_path', `the ${field} in the path has a malformed %-escape`, field);
  }
}

/** Sends `body` as JSON, never cached. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  response.end(JSON.stringify(body));
}

/** Sends an error as `{ error: { code, message, field? } }`. */
export function sendError(response: ServerResponse, error: HttpError, headers: Record<string, string> = {}): void {
  sendJson(response, error.status, { error: { code: error.code, message: error.message, ...(error.field !== undefined && { field: error.field }) } }, headers);
}

/** Sends a static asset or page. */
export function sendAsset(response: ServerResponse, contentType: string, body: string, headers: Record<string, string> = {}, status = 200): void {
  response.writeHead(status, { ...SECURITY_HEADERS, 'content-type': contentType, 'cache-control': 'no-cache', ...headers });
  response.end(body);
}

/** Redirects with 303 (after a form post: the browser follows with a GET). */
export function redirect(response: ServerResponse, location: string, headers: Record<string, string> = {}): void {
  response.writeHead(303, { ...SECURITY_HEADERS, location, 'cache-control': 'no-store', ...headers });
  response.end();
}

/** The most bytes a request body may have: actions carry a few fields, never more. */
const MAX_BODY_BYTES = 16 * 1024;

/** Reads a request's body as text, refusing one over the limit with 413. */
export function readBody(request: IncomingMessage): Promise<string> {
  // A body parser mounted before the dashboard has read the stream: waiting for its end would hang.
  if (request.readableEnded) return Promise.reject(new HttpError(500, 'body_read', 'the request body was read before the dashboard got it: mount the dashboard before body parsers (express.json(), ...)'));
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, 'too_large', `a request body may have at most ${MAX_BODY_BYTES} bytes`));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** Reads a JSON object body (an empty body reads as `{}`); 400 for anything else. */
export async function readJsonBody(request: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readBody(request);
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Answered below.
  }
  throw new HttpError(400, 'bad_body', 'the request body must be a JSON object');
}
