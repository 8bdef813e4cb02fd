import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DashboardRole } from './credentials.ts';

/** The session cookie's name. */
export const SESSION_COOKIE = 'jobs_dashboard_session';

/** A signed-in browser: its role and the CSRF token its actions must carry. */
export interface DashboardSession {
  readonly id: string;
  readonly role: DashboardRole;
  readonly csrfToken: string;
  expiresAtMs: number;
}

/**
 * Sessions held in memory (a restart signs everyone out), each renewed while it is used and
 * dropped `ttlMs` after its last use. The oldest go first beyond `max`.
 */
export class SessionStore {
  readonly #sessions = new Map<string, DashboardSession>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(options: { ttlMs: number; max?: number; now?: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#max = options.max ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Starts a session for `role`. */
  create(role: DashboardRole): DashboardSession {
    while (this.#sessions.size >= this.#max) this.#sessions.delete(this.#sessions.keys().next().value as string);
    const session = { id: randomBytes(32).toString('base64url'), role, csrfToken: randomBytes(32).toString('base64url'), expiresAtMs: this.#now() + this.#ttlMs };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** The live session named by the request's cookie, renewed; undefined when there is none. */
  fromRequest(request: IncomingMessage): DashboardSession | undefined {
    const id = readCookie(request, SESSION_COOKIE);
    if (!id) return undefined;
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    const now = this.#now();
    if (session.expiresAtMs <= now) {
      this.#sessions.delete(id);
      return undefined;
    }
    session.expiresAtMs = now + this.#ttlMs;
    // Re-inserted, so the map stays ordered by last use for the eviction above.
    this.#sessions.delete(id);
    this.#sessions.set(id, session);
    return session;
  }

  /** Ends a session. */
  delete(id: string): void {
    this.#sessions.delete(id);
  }

  /** The `Set-Cookie` value for `session`: HttpOnly, SameSite=Strict, for the dashboard's path only. */
  cookie(session: DashboardSession, path: string, secure: boolean): string {
    return `${SESSION_COOKIE}=${session.id}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(this.#ttlMs / 1000)}${secure ? '; Secure' : ''}`;
  }

  /** The `Set-Cookie` value that removes the cookie. */
  clearCookie(path: string): string {
    return `${SESSION_COOKIE}=; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=0`;
  }
}

/** One cookie's value from the request's `Cookie` header. */
export function readCookie(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
