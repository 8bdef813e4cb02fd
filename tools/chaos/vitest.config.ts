import { jobsVitestConfig } from '@jobs/testing/vitest-config';

// The chaos run brings its own redis-server (it crashes and restarts it).
export default jobsVitestConfig({ testTimeout: 600_000 });
