import { jobsVitestConfig } from '@jobs/testing/vitest-config';

// Most of these tests start the bins as child processes, several in a row; on a loaded machine
// each start of Node takes seconds, so a test gets more time than the default.
export default jobsVitestConfig({ testTimeout: 120_000 });
