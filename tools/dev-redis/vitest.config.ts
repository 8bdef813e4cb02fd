import { defineConfig } from 'vitest/config';

// Not the shared @jobs/testing config: that package depends on this one.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
