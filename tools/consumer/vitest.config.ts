import { jobsVitestConfig } from '@jobs/testing/vitest-config';

// Installing from tarballs and compiling takes a while on a busy machine; each step has a deadline of its own.
export default jobsVitestConfig({ testTimeout: 120_000 });
