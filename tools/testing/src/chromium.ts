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

/**
 * The launch options of every browser test: Debian's Chromium, headless, as root (no sandbox),
 * and with the background services off that would reach for hosts this machine cannot reach.
 */
export function chromiumLaunchOptions(): { executablePath: string; headless: true; args: string[] } {
  return {
    executablePath: ensureChromium(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  };
}
