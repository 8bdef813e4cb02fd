import { readFileSync } from 'node:fs';

/**
 * The version of `@jobs/worker` that runs, for the worker registry: read from the package's own
 * package.json (one level above `src/` and `dist/`), or `''` where there is none of that name
 * (a bundle).
 */
export function workerPackageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
    return pkg.name === '@jobs/worker' && typeof pkg.version === 'string' ? pkg.version : '';
  } catch {
    return '';
  }
}
