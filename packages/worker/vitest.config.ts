import { jobsVitestConfig } from '@jobs/testing/vitest-config';

const config = jobsVitestConfig();
// The shared config resolves the `module` condition, which picks @opentelemetry's ESM build,
// whose extensionless imports Node cannot load: this package's tests resolve as Node does.
const conditions = ['@jobs/source', 'node', 'import', 'default'];
config.resolve = { ...config.resolve, conditions };
config.ssr = { ...config.ssr, resolve: { ...config.ssr?.resolve, conditions } };

export default config;
