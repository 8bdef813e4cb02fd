import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Where Debian's chromium package puts the browser (the browser tests of the demo and the dashboard use it). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Makes sure Debian's Chromium is installed: with apt-get when it is missing and we are root,
 * else an error that says how to install it.
 */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) throw new Error(`${CHROMIUM} is missing: install it with "sudo apt-get install chromium" to run the browser test`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', 'chromium']]) {
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (${result.status ?? result.signal})`);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is still missing`);
  return CHROMIUM;
}
