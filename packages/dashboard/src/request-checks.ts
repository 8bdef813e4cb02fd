import type { IncomingMessage } from 'node:http';
import { sameSecret } from './credentials.ts';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** True for an address that only this machine reaches. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * True for a peer on this machine: a loopback address, IPv4-mapped ones (`::ffff:127.0.0.1`)
 * included. A dashboard without login answers only such peers, wherever its handler is mounted.
 */
export function isLoopbackPeer(address: string | undefined): boolean {
  if (address === undefined) return false;
  return isLoopbackHost(address.startsWith('::ffff:') ? address.slice(7) : address);
}

/** The host name of a `Host` header (without the port). */
function hostName(header: string): string {
  if (header.startsWith('[')) return header.slice(0, header.indexOf(']') + 1);
  const colon = header.lastIndexOf(':');
  return colon >= 0 ? header.slice(0, colon) : header;
}

/**
 * Whether the request's `Host` is one this dashboard answers to: a loopback name, or one of
 * `allowedHosts`. Without it, a web page whose DNS name is rebound to 127.0.0.1 could read a
 * dashboard that has no login.
 */
export function hostAllowed(request: IncomingMessage, allowedHosts: readonly string[]): boolean {
  const header = request.headers.host;
  if (!header) return false;
  const name = hostName(header).toLowerCase();
  return isLoopbackHost(name) || allowedHosts.some((host) => host.toLowerCase() === name || host.toLowerCase() === header.toLowerCase());
}

/**
 * Why a state-changing request does not come from the dashboard's own page, or undefined when it
 * does: its `Origin` (or, without one, its `Referer`) must name the host it was sent to, or one of
 * `trustedOrigins` (a proxy that rewrites `Host`). A request with neither is refused.
 */
export function originProblem(request: IncomingMessage, trustedOrigins: readonly string[]): string | undefined {
  const origin = request.headers.origin ?? originOf(request.headers.referer);
  if (!origin || origin === 'null') return 'the request names no Origin or Referer';
  if (trustedOrigins.includes(origin)) return undefined;
  const host = request.headers.host;
  if (host && (origin === `http://${host}` || origin === `https://${host}`)) return undefined;
  return `the request comes from ${origin}, not from this dashboard`;
}

function originOf(referer: string | undefined): string | undefined {
  if (!referer) return undefined;
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}

/** The header a page's actions carry their CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

/** True when the request carries the session's CSRF token (in the header, or a form's `csrf` field). */
export function csrfMatches(request: IncomingMessage, expected: string, formValue?: string): boolean {
  const given = request.headers[CSRF_HEADER];
  const value = typeof given === 'string' ? given : formValue;
  return typeof value === 'string' && value.length > 0 && sameSecret(value, expected);
}
