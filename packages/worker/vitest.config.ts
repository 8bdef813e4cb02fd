import { jobsVitestConfig } from '@jobs/testing/vitest-config';

export default jobsVitestConfig();
