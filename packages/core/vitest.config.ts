import { jobsVitestConfig } from '@jobs/testing/vitest-config';
import { mergeConfig } from 'vitest/config';

// Type tests (test/*.test-d.ts) run in vitest's typecheck mode, with the runtime tests.
export default mergeConfig(jobsVitestConfig(), { test: { typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] } } });
