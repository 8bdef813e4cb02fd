import { jobsVitestConfig } from '@jobs/testing/vitest-config';
import { mergeConfig } from 'vitest/config';

// Type tests (test/*.test-d.ts) run in vitest's typecheck mode, with the runtime tests; not again
// in the pass through EVALSHA (JOBS_TEST_SCRIPTS=eval), which only changes how scripts are sent.
const typecheck = process.env.JOBS_TEST_SCRIPTS !== 'eval';
export default mergeConfig(jobsVitestConfig(), { test: { typecheck: { enabled: typecheck, include: ['test/**/*.test-d.ts'] } } });
