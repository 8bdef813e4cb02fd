import { jobsVitestConfig } from '@jobs/testing/vitest-config';

// The browser tests start Chromium and the adapter tests a framework's server; on a loaded
// machine each start takes seconds, so a test gets more time than the default.
export default jobsVitestConfig({ testTimeout: 120_000 });
