import { createHash, timingSafeEqual } from 'node:crypto';
import { InvalidArgumentError } from '@jobs/core';
import { MIN_SESSION_SECRET_LENGTH } from './sessions.ts';

/** What a dashboard user may do: a viewer reads, an operator also acts (retry, cancel, purge...). */
export type DashboardRole = 'viewer' | 'operator';

/**
 * The tokens that open the dashboard. With neither, the dashboard has no login and everyone who
 * reaches it is an operator, which is why it then refuses to listen anywhere but loopback.
 */
export interface DashboardCredentials {
  /** Opens the dashboard with every action. */
  readonly operatorToken?: string;
  /** Opens it read-only. */
  readonly viewerToken?: string;
  /**
   * Signs the session cookies (at least 32 characters). Give every replica behind one address
   * the same secret, so a cookie one signed opens the others. Default: a random secret per
   * process, so a restart signs everyone out.
   */
  readonly sessionSecret?: string;
}

/** The environment variables the daemon reads its dashboard tokens and session secret from (never flags: `ps` shows those). */
export const DASHBOARD_TOKEN_ENV = { operator: 'JOBS_DASHBOARD_TOKEN', viewer: 'JOBS_DASHBOARD_VIEWER_TOKEN', sessionSecret: 'JOBS_DASHBOARD_SESSION_SECRET' } as const;

/** The shortest token accepted: a guessable token is worse than none, since it looks safe. */
export const MIN_TOKEN_LENGTH = 16;

/** Throws `JOBS_INVALID_ARGUMENT` for a token or session secret that is too short, or one role's token reused for the other. */
export function assertCredentials(credentials: DashboardCredentials): void {
  for (const [field, token] of [['operatorToken', credentials.operatorToken], ['viewerToken', credentials.viewerToken]] as const) {
    if (token !== undefined && token.length < MIN_TOKEN_LENGTH) throw new InvalidArgumentError(field, `a dashboard token needs at least ${MIN_TOKEN_LENGTH} characters`);
  }
  if (credentials.sessionSecret !== undefined && credentials.sessionSecret.length < MIN_SESSION_SECRET_LENGTH) {
    throw new InvalidArgumentError('sessionSecret', `a dashboard session secret needs at least ${MIN_SESSION_SECRET_LENGTH} characters`);
  }
  if (credentials.operatorToken !== undefined && credentials.operatorToken === credentials.viewerToken) {
    throw new InvalidArgumentError('viewerToken', 'the viewer token must differ from the operator token');
  }
}

/**
 * Reads the tokens from `JOBS_DASHBOARD_TOKEN` and `JOBS_DASHBOARD_VIEWER_TOKEN`, and the session
 * secret from `JOBS_DASHBOARD_SESSION_SECRET`; empty values count as unset.
 */
export function credentialsFromEnv(env: NodeJS.ProcessEnv): DashboardCredentials {
  const operatorToken = env[DASHBOARD_TOKEN_ENV.operator] || undefined;
  const viewerToken = env[DASHBOARD_TOKEN_ENV.viewer] || undefined;
  const sessionSecret = env[DASHBOARD_TOKEN_ENV.sessionSecret] || undefined;
  const credentials = { ...(operatorToken && { operatorToken }), ...(viewerToken && { viewerToken }), ...(sessionSecret && { sessionSecret }) };
  assertCredentials(credentials);
  return credentials;
}

/** True when the dashboard asks for a token. */
export function requiresLogin(credentials: DashboardCredentials): boolean {
  return credentials.operatorToken !== undefined || credentials.viewerToken !== undefined;
}

/** Compares in constant time (hashing first, so lengths do not leak either). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The role a token opens, or undefined when it opens none. */
export function roleForToken(credentials: DashboardCredentials, token: string): DashboardRole | undefined {
  // Both are compared, so the time taken does not say which one matched.
  const operator = credentials.operatorToken !== undefined && sameSecret(token, credentials.operatorToken);
  const viewer = credentials.viewerToken !== undefined && sameSecret(token, credentials.viewerToken);
  if (operator) return 'operator';
  return viewer ? 'viewer' : undefined;
}
