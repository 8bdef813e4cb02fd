import { jobsVitestConfig } from '@jobs/testing/vitest-config';

export default jobsVitestConfig({ testTimeout: 300_000 });
