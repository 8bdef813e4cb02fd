import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { tokensOf, type DashboardCredentials, type DashboardRole, type DashboardToken } from './credentials.ts';

/** The session cookie's name. */
export const SESSION_COOKIE = 'jobs_dashboard_session';

/** A signed-in browser: its role, its token's label, and the CSRF token its actions must carry. */
export interface DashboardSession {
  /** The session's random name; it stays the same when the cookie is renewed. */
  readonly id: string;
  readonly role: DashboardRole;
  /** The label of the token it signed in with (`operator`, `viewer`, or one of `credentials.tokens`). */
  readonly label: string;
  readonly csrfToken: string;
  /** When it signed in: it ends `sessionMaxAgeMs` after, however often it is renewed. */
  readonly startedAtMs: number;
  readonly expiresAtMs: number;
}

/** The most signed-out sessions remembered per label; one user's sign-outs never push out another's. */
const REVOKED_PER_LABEL = 10_000;

// label (base64url of its UTF-8: up to 64 characters of up to 4 bytes).id.started.expires.mac
const COOKIE_VALUE = /^([A-Za-z0-9_-]{0,342})\.([A-Za-z0-9_-]{22})\.(\d{1,16})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/;

/** The shortest session secret accepted (as for tokens: a guessable one only looks safe). */
export const MIN_SESSION_SECRET_LENGTH = 32;

function base64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

/**
 * Sessions as signed cookies: the cookie holds the token's label, a random id, the sign-in time
 * and the expiry, with an HMAC-SHA256 over them. Nothing is kept per session, so no number of
 * sign-ins can push one out, and dashboards that share the secret accept each other's cookies.
 * Each label signs with a key derived from the secret, its role and its token, so a changed or
 * removed token ends its sessions. A session is renewed while it is used and ends `ttlMs` after
 * its last use, and `maxAgeMs` after its sign-in at the latest; a sign-out is remembered (per
 * label, bounded) until the cookie would have expired.
 */
export class SessionSigner {
  readonly #ttlMs: number;
  readonly #maxAgeMs: number;
  readonly #now: () => number;
  readonly #keys: ReadonlyMap<string, { role: DashboardRole; key: Buffer }>;
  readonly #revoked = new Map<string, Map<string, number>>();

  /**
   * `secret`: shared by replicas, at least 32 characters; default a random one of this process.
   * `builtIn`: labels signed without a token (the loopback operator of a dashboard without login).
   */
  constructor(options: { ttlMs: number; maxAgeMs?: number; credentials: DashboardCredentials; builtIn?: readonly DashboardToken[]; secret?: string; now?: () => number }) {
    this.#ttlMs = options.ttlMs;
    this.#maxAgeMs = options.maxAgeMs ?? Number.MAX_SAFE_INTEGER;
    this.#now = options.now ?? Date.now;
    const secret = options.secret ?? randomBytes(32).toString('base64url');
    const entries = [...tokensOf(options.credentials), ...(options.builtIn ?? [])];
    this.#keys = new Map(
      entries.map(({ label, role, token }) => [
        label,
        { role, key: createHmac('sha256', secret).update(`jobs-dashboard-session\n${role}\n${label}\n${createHash('sha256').update(token).digest('hex')}`).digest() },
      ]),
    );
  }

  #mac(label: string, text: string): string {
    const entry = this.#keys.get(label) as { key: Buffer };
    return base64url(createHmac('sha256', entry.key).update(text).digest());
  }

  #session(label: string, id: string, startedAtMs: number, expiresAtMs: number): DashboardSession {
    const { role } = this.#keys.get(label) as { role: DashboardRole };
    return { id, role, label, csrfToken: this.#mac(label, `csrf.${id}`), startedAtMs, expiresAtMs };
  }

  #body(session: DashboardSession): string {
    return `${Buffer.from(session.label).toString('base64url')}.${session.id}.${session.startedAtMs}.${session.expiresAtMs}`;
  }

  /** Starts a session for the token labelled `label` (a role's name for `operatorToken` and `viewerToken`). */
  create(label: string): DashboardSession {
    if (!this.#keys.has(label)) throw new Error(`no dashboard token is labelled ${JSON.stringify(label)}`);
    const now = this.#now();
    return this.#session(label, base64url(randomBytes(16)), now, Math.min(now + this.#ttlMs, now + this.#maxAgeMs));
  }

  /** The session named by the request's cookie when its signature holds and it has not expired, passed its maximum age, or been signed out. */
  fromRequest(request: IncomingMessage): DashboardSession | undefined {
    const match = COOKIE_VALUE.exec(readCookie(request, SESSION_COOKIE) ?? '');
    if (!match) return undefined;
    const [, encoded, id, started, expires, mac] = match as unknown as [string, string, string, string, string, string];
    const label = Buffer.from(encoded, 'base64url').toString();
    if (!this.#keys.has(label) || Buffer.from(label).toString('base64url') !== encoded) return undefined;
    const expected = Buffer.from(this.#mac(label, `${encoded}.${id}.${started}.${expires}`));
    if (!timingSafeEqual(Buffer.from(mac), expected)) return undefined;
    const startedAtMs = Number(started);
    const expiresAtMs = Number(expires);
    const now = this.#now();
    if (expiresAtMs <= now || startedAtMs + this.#maxAgeMs <= now || this.#revoked.get(label)?.has(id)) return undefined;
    return this.#session(label, id, startedAtMs, expiresAtMs);
  }

  /**
   * The session with its expiry moved to `ttlMs` from now (never past its maximum age), or
   * undefined when it was renewed less than a minute (a tenth of the TTL, when shorter) ago or
   * has reached its maximum age: a new cookie at most that often.
   */
  renewed(session: DashboardSession): DashboardSession | undefined {
    const now = this.#now();
    const next = Math.min(now + this.#ttlMs, session.startedAtMs + this.#maxAgeMs);
    if (next <= session.expiresAtMs) return undefined;
    const renewedAtMs = session.expiresAtMs - this.#ttlMs;
    if (now - renewedAtMs < Math.min(60_000, this.#ttlMs / 10)) return undefined;
    return this.#session(session.label, session.id, session.startedAtMs, next);
  }

  /** Ends a session: its cookie (and every renewal of it) is refused until it would have expired. */
  revoke(session: DashboardSession): void {
    const now = this.#now();
    let revoked = this.#revoked.get(session.label);
    if (!revoked) {
      revoked = new Map();
      this.#revoked.set(session.label, revoked);
    }
    // Oldest first: drop those whose cookies have expired anyway, then the oldest beyond the cap.
    for (const [id, untilMs] of revoked) {
      if (untilMs > now && revoked.size < REVOKED_PER_LABEL) break;
      revoked.delete(id);
    }
    revoked.set(session.id, Math.min(now + this.#ttlMs, session.startedAtMs + this.#maxAgeMs));
  }

  /** The `Set-Cookie` value for `session`: HttpOnly, SameSite=Strict, for the dashboard's path only. */
  cookie(session: DashboardSession, path: string, secure: boolean): string {
    const body = this.#body(session);
    const maxAge = Math.max(0, Math.floor((session.expiresAtMs - this.#now()) / 1000));
    return `${SESSION_COOKIE}=${body}.${this.#mac(session.label, body)}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
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
