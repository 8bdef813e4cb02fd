import { existsSync } from 'node:fs';

/** Where Debian's chromium package puts the browser (the browser tests of the demo and the dashboard use it). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * The path of Debian's Chromium, for the browser tests. Tests install nothing: `npm test`'s
 * bootstrap installs the system packages in one step before any test starts, so a missing
 * browser is an error that says how to get it.
 */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  throw new Error(
    `${CHROMIUM} is missing: the browser tests need Debian's chromium package. Run the tests with \`npm test\` ` +
      '(scripts/bootstrap.mjs installs it, with the other system packages, before any test starts), or install it with `sudo apt-get install chromium`.',
  );
}
