import packageJson from '../package.json' with { type: 'json' };

/**
 * This package's version, as its package.json says. A JSON import, not a file read at run time:
 * `dist/` sits beside package.json as `src/` does, and a bundler inlines it.
 */
export const VERSION: string = packageJson.version;
