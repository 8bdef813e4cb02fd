import { JobsError } from '@jobs/core';
import { describe, expect, test } from 'vitest';
import { closestNames } from '../src/admin/closest-names.ts';
import { jsonLogger } from '../src/index.ts';

describe('jsonLogger (pino)', () => {
  test('writes JSON lines with the level by name, an ISO time, the fields, and an error with its code and stack under err', () => {
    const lines: string[] = [];
    const log = jsonLogger({ level: 'info', write: (line) => lines.push(line) });
    log.debug({ dropped: true }, 'below the level');
    log.error({ queue: 'mail', err: new JobsError('JOBS_REDIS_NOPERM', 'the Redis user lacks a permission') }, 'sweep failed');
    log.child?.({ replica: 'a' }).info({ n: 1 }, 'child');
    expect(lines).toHaveLength(2);
    const [failed, child] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(failed).toMatchObject({ level: 'error', msg: 'sweep failed', queue: 'mail', err: { type: 'JobsError', code: 'JOBS_REDIS_NOPERM', message: 'the Redis user lacks a permission' } });
    expect(String(failed?.time)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((failed?.err as { stack: string }).stack).toMatch(/^JobsError: the Redis user lacks a permission\n\s+at /);
    expect(child).toMatchObject({ level: 'info', msg: 'child', replica: 'a', n: 1 });
  });
});

describe('closestNames (the queues shown for a mistyped one)', () => {
  test('orders names by how close they are, and suggests one a typo explains', () => {
    expect(closestNames('mial', ['billing', 'mail', 'mails', 'zzz'])).toEqual({ ordered: ['mail', 'mails', 'zzz', 'billing'], suggestion: 'mail' });
    expect(closestNames('orders', ['billing', 'mail']).suggestion).toBeUndefined();
  });
});
