import { describe, expect, test } from 'vitest';
import * as api from '../src/index.ts';
import * as internal from '../src/internal.ts';

describe('@jobs/core entries', () => {
  test('the public entry leaves connection, parsing and partition helpers to @jobs/core/internal', () => {
    for (const name of ['connectRedis', 'closeClient', 'duplicateClient', 'toJobsError', 'childLogger', 'assertWholeNumber', 'partitionNames', 'parseJobRecord', 'recordedPartitions']) {
      expect(api, name).not.toHaveProperty(name);
      expect(internal, name).toHaveProperty(name);
    }
    expect(typeof api.Queue).toBe('function');
    expect(api.JOBS_ERROR_CODES.DUPLICATE_ID).toBe('JOBS_DUPLICATE_ID');
  });
});
