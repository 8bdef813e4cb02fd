import * as core from '@jobs/core';
import { describe, expect, test } from 'vitest';
import * as api from '../src/index.ts';

describe('@jobs/worker exports', () => {
  test('re-exports the kind registry and errors from core, so users never import @jobs/core', () => {
    expect(api.defineKinds).toBe(core.defineKinds);
    expect(api.ValidationError).toBe(core.ValidationError);
    expect(api.JOBS_ERROR_CODES).toBe(core.JOBS_ERROR_CODES);
    const kinds = api.defineKinds({ ping: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } });
    expect(() => kinds.validate('ping', { n: 'one' })).toThrow(api.ValidationError);
    expect(api.isJobsError(new api.UnknownKindError('x', ['ping']), 'JOBS_UNKNOWN_KIND')).toBe(true);
  });
});
