import { createHash, timingSafeEqual } from 'node:crypto';
import { AUDIT_LABEL_PATTERN, InvalidArgumentError } from '@jobs/core';
import { assertOptionKeys, type OptionKeys } from '@jobs/core/internal';
import { MIN_SESSION_SECRET_LENGTH } from './sessions.ts';

/** What a dashboard user may do: a viewer reads, an operator also acts (retry, cancel, purge...). */
export type DashboardRole = 'viewer' | 'operator';

/** A token that opens the dashboard with a role, and the label its sessions and actions carry (in the audit trail: who). */
export interface DashboardToken {
  /** At least 16 characters. */
  readonly token: string;
  readonly role: DashboardRole;
  /** Who holds it (`alice`, `ci-bot`, `José`): 1-64 characters, no control characters, no space at either end; unique. */
  readonly label: string;
}

/**
 * The tokens that open the dashboard. With none, the dashboard has no login and everyone who
 * reaches it is an operator, which is why it then refuses to listen anywhere but loopback.
 */
export interface DashboardCredentials {
  /** Opens the dashboard with every action. */
  readonly operatorToken?: string;
  /** Opens it read-only. */
  readonly viewerToken?: string;
  /** More tokens, each with its role and label (`operatorToken` is labelled `operator`, `viewerToken` `viewer`). */
  readonly tokens?: readonly DashboardToken[];
  /**
   * Signs the session cookies (at least 32 characters). Give every replica behind one address
   * the same secret, so a cookie one signed opens the others. Default: a random secret per
   * process, so a restart signs everyone out.
   */
  readonly sessionSecret?: string;
}

/**
 * The environment variables the daemon reads its dashboard tokens and session secret from (never
 * flags: `ps` shows those). `JOBS_DASHBOARD_TOKENS` holds labelled tokens: entries
 * `label:role:token` separated by commas or white space.
 */
export const DASHBOARD_TOKEN_ENV = { operator: 'JOBS_DASHBOARD_TOKEN', viewer: 'JOBS_DASHBOARD_VIEWER_TOKEN', tokens: 'JOBS_DASHBOARD_TOKENS', sessionSecret: 'JOBS_DASHBOARD_SESSION_SECRET' } as const;

/** The shortest token accepted: a guessable token is worse than none, since it looks safe. */
export const MIN_TOKEN_LENGTH = 16;

/** A label: 1-64 characters, no control characters, no space at either end (core's rule for the audit trail's labels). */
export const LABEL_PATTERN = AUDIT_LABEL_PATTERN;

const ROLES: readonly string[] = ['operator', 'viewer'];
const CREDENTIAL_KEYS: OptionKeys<DashboardCredentials> = { operatorToken: true, viewerToken: true, tokens: true, sessionSecret: true };
const TOKEN_KEYS: OptionKeys<DashboardToken> = { token: true, role: true, label: true };

/** Every token, the two single ones first, labelled `operator` and `viewer`. */
export function tokensOf(credentials: DashboardCredentials): DashboardToken[] {
  return [
    ...(credentials.operatorToken === undefined ? [] : [{ token: credentials.operatorToken, role: 'operator' as const, label: 'operator' }]),
    ...(credentials.viewerToken === undefined ? [] : [{ token: credentials.viewerToken, role: 'viewer' as const, label: 'viewer' }]),
    ...(credentials.tokens ?? []),
  ];
}

/**
 * Throws `JOBS_INVALID_ARGUMENT` (naming the field) for an unknown key, a token or session secret
 * that is too short, a role other than operator or viewer, a label that is not 1-64 printable
 * characters, or a token or label given twice.
 */
export function assertCredentials(credentials: DashboardCredentials): void {
  assertOptionKeys<DashboardCredentials>('credentials', credentials, CREDENTIAL_KEYS);
  for (const [field, token] of [['operatorToken', credentials.operatorToken], ['viewerToken', credentials.viewerToken]] as const) {
    if (token !== undefined && (typeof token !== 'string' || token.length < MIN_TOKEN_LENGTH)) throw new InvalidArgumentError(field, `a dashboard token needs at least ${MIN_TOKEN_LENGTH} characters`);
  }
  if (credentials.tokens !== undefined && !Array.isArray(credentials.tokens)) throw new InvalidArgumentError('tokens', 'expected an array of { token, role, label }');
  (credentials.tokens ?? []).forEach((entry, n) => {
    const field = `tokens[${n}]`;
    assertOptionKeys<DashboardToken>(field, entry, TOKEN_KEYS);
    if (typeof entry.token !== 'string' || entry.token.length < MIN_TOKEN_LENGTH) throw new InvalidArgumentError(`${field}.token`, `a dashboard token needs at least ${MIN_TOKEN_LENGTH} characters`);
    if (!ROLES.includes(entry.role)) throw new InvalidArgumentError(`${field}.role`, 'expected operator or viewer');
    if (typeof entry.label !== 'string' || !LABEL_PATTERN.test(entry.label)) throw new InvalidArgumentError(`${field}.label`, 'expected 1-64 characters, no control characters, no space at either end');
  });
  if (credentials.sessionSecret !== undefined && (typeof credentials.sessionSecret !== 'string' || credentials.sessionSecret.length < MIN_SESSION_SECRET_LENGTH)) {
    throw new InvalidArgumentError('sessionSecret', `a dashboard session secret needs at least ${MIN_SESSION_SECRET_LENGTH} characters`);
  }
  if (credentials.operatorToken !== undefined && credentials.operatorToken === credentials.viewerToken) {
    throw new InvalidArgumentError('viewerToken', 'the viewer token must differ from the operator token');
  }
  const all = tokensOf(credentials);
  const fields = [
    ...(credentials.operatorToken === undefined ? [] : ['operatorToken']),
    ...(credentials.viewerToken === undefined ? [] : ['viewerToken']),
    ...(credentials.tokens ?? []).map((_, n) => `tokens[${n}]`),
  ];
  all.forEach((entry, n) => {
    if (all.findIndex((other) => other.label === entry.label) !== n) throw new InvalidArgumentError(`${fields[n]}.label`, `the label ${JSON.stringify(entry.label)} is given twice (operatorToken is labelled operator, viewerToken viewer)`);
    if (all.findIndex((other) => other.token === entry.token) !== n) throw new InvalidArgumentError(fields[n] as string, 'this token is given twice: each token opens one role under one label');
  });
}

/** Parses `JOBS_DASHBOARD_TOKENS`: `label:role:token` entries separated by commas or white space. */
function tokensFromEnv(text: string): DashboardToken[] {
  const name = DASHBOARD_TOKEN_ENV.tokens;
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((entry, n) => {
      const match = /^([^:]+):([^:]+):(.+)$/.exec(entry);
      if (!match) throw new InvalidArgumentError(name, `entry ${n + 1} is not label:role:token`);
      const [, label, role, token] = match as unknown as [string, string, string, string];
      if (!ROLES.includes(role)) throw new InvalidArgumentError(name, `entry ${n + 1} (${JSON.stringify(label.slice(0, 64))}) has role ${JSON.stringify(role.slice(0, 16))}: expected operator or viewer`);
      return { label, role: role as DashboardRole, token };
    });
}

/**
 * Reads the tokens from `JOBS_DASHBOARD_TOKEN`, `JOBS_DASHBOARD_VIEWER_TOKEN` and
 * `JOBS_DASHBOARD_TOKENS` (labelled: `alice:operator:TOKEN,bob:viewer:TOKEN`), and the session
 * secret from `JOBS_DASHBOARD_SESSION_SECRET`; empty values count as unset.
 */
export function credentialsFromEnv(env: NodeJS.ProcessEnv): DashboardCredentials {
  const operatorToken = env[DASHBOARD_TOKEN_ENV.operator] || undefined;
  const viewerToken = env[DASHBOARD_TOKEN_ENV.viewer] || undefined;
  const tokens = tokensFromEnv(env[DASHBOARD_TOKEN_ENV.tokens] ?? '');
  const sessionSecret = env[DASHBOARD_TOKEN_ENV.sessionSecret] || undefined;
  const credentials = { ...(operatorToken && { operatorToken }), ...(viewerToken && { viewerToken }), ...(tokens.length > 0 && { tokens }), ...(sessionSecret && { sessionSecret }) };
  assertCredentials(credentials);
  return credentials;
}

/** True when the dashboard asks for a token. */
export function requiresLogin(credentials: DashboardCredentials): boolean {
  return tokensOf(credentials).length > 0;
}

/** Compares in constant time (hashing first, so lengths do not leak either). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The token entry `token` is, or undefined when it opens nothing. */
export function tokenFor(credentials: DashboardCredentials, token: string): DashboardToken | undefined {
  // Every token is compared, so the time taken does not say which one matched.
  let found: DashboardToken | undefined;
  for (const entry of tokensOf(credentials)) if (sameSecret(token, entry.token) && !found) found = entry;
  return found;
}
