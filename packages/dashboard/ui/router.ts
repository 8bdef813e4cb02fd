// The page's routes: one URL for every view, under the base path, moved through with the
// History API so back and forward work and every view can be linked and reloaded.

import { useEffect, useState } from 'preact/hooks';
import { BASE } from './api.ts';

/** The view a URL names. */
export type Route =
  | { readonly view: 'overview' }
  | { readonly view: 'list'; readonly queue: string; readonly state: string | undefined; readonly query: URLSearchParams }
  | { readonly view: 'job'; readonly queue: string; readonly id: string }
  | { readonly view: 'schedules'; readonly queue: string; readonly name: string | undefined }
  | { readonly view: 'workers'; readonly queue: string; readonly id: string | undefined }
  | { readonly view: 'batches'; readonly queue: string }
  | { readonly view: 'history'; readonly queue: string; readonly query: URLSearchParams }
  | { readonly view: 'audit'; readonly queue: string; readonly query: URLSearchParams }
  | { readonly view: 'missing'; readonly path: string };

const part = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/** The route of a location's path (after the base path) and query. */
export function parseRoute(pathname: string, search: string): Route {
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const query = new URLSearchParams(search);
  const parts = path.split('/').filter(Boolean).map(part);
  if (parts.length === 0) return { view: 'overview' };
  if (parts[0] !== 'queues' || parts.length < 2) return { view: 'missing', path };
  const queue = parts[1] as string;
  const [, , section, id] = parts;
  if (section === undefined) return { view: 'list', queue, state: undefined, query };
  if (section === 'jobs' && id !== undefined) return { view: 'job', queue, id };
  if (section === 'schedules') return { view: 'schedules', queue, name: id };
  if (section === 'workers') return { view: 'workers', queue, id };
  if (section === 'batches' && id === undefined) return { view: 'batches', queue };
  if (section === 'history') return { view: 'history', queue, query };
  if (section === 'audit') return { view: 'audit', queue, query };
  if (id === undefined) return { view: 'list', queue, state: section, query };
  return { view: 'missing', path };
}

/** The URL (with the base path) of a queue's page: `/queues/:q` plus `rest` (`failed`, `jobs/ID`...). */
export function queueHref(queue: string, rest = '', query = ''): string {
  return `${BASE}/queues/${encodeURIComponent(queue)}${rest ? `/${rest}` : ''}${query}`;
}

/** The URL of a job's page. */
export function jobHref(queue: string, id: string): string {
  return queueHref(queue, `jobs/${encodeURIComponent(id)}`);
}

/** The overview's URL. */
export const overviewHref = (): string => `${BASE}/`;

const listeners = new Set<() => void>();

/** Goes to `href` (a URL of this page) without reloading; `replace` keeps the history entry. */
export function navigate(href: string, replace = false): void {
  if (replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  for (const listener of listeners) listener();
}

/** The current route, updated on navigation and on back/forward. */
export function useRoute(): Route {
  const read = (): Route => parseRoute(window.location.pathname, window.location.search);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = (): void => setRoute(read());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/**
 * A click handler for a link to a view of this page: a plain click navigates in place, a click
 * with a modifier (new tab, new window) is left to the browser.
 */
export function onLinkClick(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element | null)?.closest('a');
  const href = anchor?.getAttribute('href');
  if (!anchor || !href || anchor.target || !href.startsWith(`${BASE}/`)) return;
  event.preventDefault();
  navigate(href);
}
