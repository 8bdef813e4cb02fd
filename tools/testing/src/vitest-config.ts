import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';
import { requestedRedisMode, requestedScriptsMode } from './requested-redis.ts';

// From source (.ts) in this repo's own runs, from dist (.js) once built.
const globalSetup = fileURLToPath(new URL(`./global-setup${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));

/**
 * The vitest config every package shares: tests under `test/`, sibling packages read from source
 * (the `@jobs/source` export condition), one private redis-server per run (a Redis Cluster with
 * `JOBS_TEST_REDIS=cluster`), and a JSON report that `npm test` sums into one closing line:
 * `test-results/vitest.json`, `test-results/vitest-cluster.json` on a cluster run, or
 * `test-results/vitest-eval.json` on a run through EVALSHA (`JOBS_TEST_SCRIPTS=eval`), so the
 * reports of every pass are kept.
 */
export function jobsVitestConfig(overrides: { testTimeout?: number } = {}): ViteUserConfig {
  const report =
    requestedRedisMode() === 'cluster' ? 'test-results/vitest-cluster.json' : requestedScriptsMode() === 'eval' ? 'test-results/vitest-eval.json' : 'test-results/vitest.json';
  return defineConfig({
    resolve: { conditions: ['@jobs/source', 'module', 'node', 'default'] },
    ssr: { resolve: { conditions: ['@jobs/source', 'module', 'node', 'default'] } },
    test: {
      include: ['test/**/*.test.ts'],
      globalSetup: [globalSetup],
      testTimeout: overrides.testTimeout ?? 20_000,
      hookTimeout: 20_000,
      // A poll ends as soon as its condition holds; the bound only says when to give up, and a
      // loaded machine can take seconds to answer a page or a Redis call.
      expect: { poll: { timeout: 15_000 } },
      reporters: ['default', ['json', { outputFile: report }]],
    },
  });
}
