import { defineConfig } from 'vitest/config';

// Not the shared jobsVitestConfig: these tests need no Redis.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
