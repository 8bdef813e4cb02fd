/**
 * Whether a request's URL (its path and query, as `IncomingMessage.url` holds it) is one the
 * dashboard answers: its base path itself or a path under it. `/admin/jobsx` is not under
 * `/admin/jobs`; every path is under the root (`''`).
 */
export function isUnderBasePath(basePath: string, url: string): boolean {
  if (basePath === '') return true;
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  return path === basePath || path.startsWith(`${basePath}/`);
}
