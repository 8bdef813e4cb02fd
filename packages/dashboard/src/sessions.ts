import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DashboardCredentials, DashboardRole } from './credentials.ts';

/** The session cookie's name. */
export const SESSION_COOKIE = 'jobs_dashboard_session';

/** A signed-in browser: its role and the CSRF token its actions must carry. */
export interface DashboardSession {
  /** The session's random name; it stays the same when the cookie is renewed. */
  readonly id: string;
  readonly role: DashboardRole;
  readonly csrfToken: string;
  readonly expiresAtMs: number;
}

/** The most signed-out sessions remembered per role; a viewer's sign-outs never push out an operator's. */
const REVOKED_PER_ROLE = 10_000;

const ROLES: readonly DashboardRole[] = ['operator', 'viewer'];
const COOKIE_VALUE = /^(operator|viewer)\.([A-Za-z0-9_-]{22})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/;

/** The shortest session secret accepted (as for tokens: a guessable one only looks safe). */
export const MIN_SESSION_SECRET_LENGTH = 32;

function base64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

/**
 * Sessions as signed cookies: the cookie holds the role, a random id and the expiry, with an
 * HMAC-SHA256 over them. Nothing is kept per session, so no number of sign-ins can push one
 * out, and dashboards that share the secret accept each other's cookies. Each role signs with a
 * key derived from the secret and that role's token, so a changed token ends its sessions. A
 * session is renewed while it is used and ends `ttlMs` after its last use; a sign-out is
 * remembered (per role, bounded) until the cookie would have expired.
 */
export class SessionSigner {
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #keys: ReadonlyMap<DashboardRole, Buffer>;
  readonly #revoked = new Map<DashboardRole, Map<string, number>>(ROLES.map((role) => [role, new Map()]));

  /** `secret`: shared by replicas, at least 32 characters; default a random one of this process. */
  constructor(options: { ttlMs: number; credentials: DashboardCredentials; secret?: string; now?: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#now = options.now ?? Date.now;
    const secret = options.secret ?? randomBytes(32).toString('base64url');
    const tokens: Record<DashboardRole, string> = { operator: options.credentials.operatorToken ?? '', viewer: options.credentials.viewerToken ?? '' };
    this.#keys = new Map(
      ROLES.map((role) => [role, createHmac('sha256', secret).update(`jobs-dashboard-session\n${role}\n${createHash('sha256').update(tokens[role]).digest('hex')}`).digest()]),
    );
  }

  #mac(role: DashboardRole, text: string): string {
    return base64url(createHmac('sha256', this.#keys.get(role) as Buffer).update(text).digest());
  }

  #session(role: DashboardRole, id: string, expiresAtMs: number): DashboardSession {
    return { id, role, csrfToken: this.#mac(role, `csrf.${id}`), expiresAtMs };
  }

  /** Starts a session for `role`. */
  create(role: DashboardRole): DashboardSession {
    return this.#session(role, base64url(randomBytes(16)), this.#now() + this.#ttlMs);
  }

  /** The session named by the request's cookie when its signature holds and it has not expired or been signed out. */
  fromRequest(request: IncomingMessage): DashboardSession | undefined {
    const match = COOKIE_VALUE.exec(readCookie(request, SESSION_COOKIE) ?? '');
    if (!match) return undefined;
    const [, role, id, expires, mac] = match as unknown as [string, DashboardRole, string, string, string];
    const expected = Buffer.from(this.#mac(role, `${role}.${id}.${expires}`));
    if (!timingSafeEqual(Buffer.from(mac), expected)) return undefined;
    const expiresAtMs = Number(expires);
    if (expiresAtMs <= this.#now() || this.#revoked.get(role)?.has(id)) return undefined;
    return this.#session(role, id, expiresAtMs);
  }

  /**
   * The session with its expiry moved to `ttlMs` from now, or undefined when it was renewed
   * less than a minute (a tenth of the TTL, when shorter) ago: a new cookie at most that often.
   */
  renewed(session: DashboardSession): DashboardSession | undefined {
    const now = this.#now();
    const renewedAtMs = session.expiresAtMs - this.#ttlMs;
    if (now - renewedAtMs < Math.min(60_000, this.#ttlMs / 10)) return undefined;
    return this.#session(session.role, session.id, now + this.#ttlMs);
  }

  /** Ends a session: its cookie (and every renewal of it) is refused until it would have expired. */
  revoke(session: DashboardSession): void {
    const now = this.#now();
    const revoked = this.#revoked.get(session.role) as Map<string, number>;
    // Oldest first: drop those whose cookies have expired anyway, then the oldest beyond the cap.
    for (const [id, untilMs] of revoked) {
      if (untilMs > now && revoked.size < REVOKED_PER_ROLE) break;
      revoked.delete(id);
    }
    revoked.set(session.id, now + this.#ttlMs);
  }

  /** The `Set-Cookie` value for `session`: HttpOnly, SameSite=Strict, for the dashboard's path only. */
  cookie(session: DashboardSession, path: string, secure: boolean): string {
    const body = `${session.role}.${session.id}.${session.expiresAtMs}`;
    const maxAge = Math.max(0, Math.floor((session.expiresAtMs - this.#now()) / 1000));
    return `${SESSION_COOKIE}=${body}.${this.#mac(session.role, body)}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
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
