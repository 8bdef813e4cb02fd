import { jobsVitestConfig } from '@jobs/testing/vitest-config';
import { mergeConfig } from 'vitest/config';

// Type tests (test/*.test-d.ts) run in vitest's typecheck mode, with the runtime tests.
const config = mergeConfig(jobsVitestConfig(), { test: { typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] } } });
// The shared config resolves the `module` condition, which picks @opentelemetry's ESM build,
// whose extensionless imports Node cannot load: this package's tests resolve as Node does.
const conditions = ['@jobs/source', 'node', 'import', 'default'];
config.resolve = { ...config.resolve, conditions };
config.ssr = { ...config.ssr, resolve: { ...config.ssr?.resolve, conditions } };

export default config;
