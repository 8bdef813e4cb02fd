/**
 * The paths of the workspace's pages, under the base path: the overview (`/`) and every page of a
 * queue (`/queues/:q`, `/queues/:q/:state`, `/queues/:q/jobs/:id`, `/queues/:q/schedules`,
 * `/queues/:q/workers`, `/queues/:q/workers/:id`, `/queues/:q/batches`, `/queues/:q/history`,
 * `/queues/:q/audit`).
 * Each answers the same page, which routes in the browser (History API), so a link or a reload
 * of any of them opens that view.
 */
const UI_PATH = /^\/(queues\/[^/]+(\/[a-z-]+(\/[^/]+)?)?\/?)?$/;

/** True when `path` (after the base path) is one of the workspace's pages. */
export function isUiPath(path: string): boolean {
  return UI_PATH.test(path);
}

/**
 * The page as served under `basePath`: its script and style linked from the base path (a page
 * at `/queues/q/jobs/1` cannot use relative links) and the base path in a meta tag the script
 * reads. `basePath` is checked to be a plain path (letters, digits, `._~-` and slashes).
 */
export function pageUnder(html: string, basePath: string): string {
  return html.replaceAll('"assets/', `"${basePath}/assets/`).replace('<meta name="jobs-base-path" content="">', `<meta name="jobs-base-path" content="${basePath}">`);
}

/** A path as a browser sends it: letters, digits, `%`-escapes and `/ . _ ~ -` only. */
const PLAIN_PATH = /^\/[A-Za-z0-9._~%/-]{1,1000}$/;

/**
 * The page to return to after signing in, from the `next` of the login's address: a page of
 * the workspace other than the overview, in plain path characters (so it can be written into
 * the login form's address as it is), else undefined.
 */
export function returnPath(next: string | null): string | undefined {
  return next !== null && next !== '/' && PLAIN_PATH.test(next) && isUiPath(next) ? next : undefined;
}
