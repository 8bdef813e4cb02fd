import { describe, expect, test } from 'vitest';
import { defineKinds, isJobsError } from '../src/index.ts';
import { kinds } from './fixtures.ts';

describe('kinds', () => {
  test('validate accepts a valid payload and reports every violation of an invalid one', () => {
    expect(kinds.validate('email', { recipient: 'a@example.com' })).toEqual({ recipient: 'a@example.com' });
    let error: unknown;
    try {
      kinds.validate('thumbnail', { width: 0, image: 3 });
    } catch (caught) {
      error = caught;
    }
    expect(isJobsError(error, 'JOBS_VALIDATION')).toBe(true);
    expect((error as { issues: { pointer: string; keyword: string }[] }).issues).toEqual([
      { pointer: '/image', keyword: 'type', message: 'must be string' },
      { pointer: '/width', keyword: 'minimum', message: 'must be >= 1' },
    ]);
  });

  test('formats are checked (email, uri)', () => {
    expect(() => kinds.validate('email', { recipient: 'nope' })).toThrow(/recipient must match format "email"/);
    expect(() => kinds.validate('webhook', { url: 'not a uri' })).toThrow(/url must match format "uri"/);
  });

  test('encode stores the kind inside the payload, first, as the recipe does', () => {
    expect(kinds.encode('email', { recipient: 'a@example.com' })).toBe('{"kind":"email","recipient":"a@example.com"}');
  });

  test('decode routes by the payload kind, falls back to the hash kind, and says why a payload cannot run', () => {
    expect(kinds.decode('{"kind":"email","recipient":"a@example.com"}')).toEqual({ ok: true, kind: 'email', payload: { recipient: 'a@example.com' } });
    expect(kinds.decode('{"recipient":"a@example.com"}', 'email')).toMatchObject({ ok: true, kind: 'email' });
    expect(kinds.decode('[1,2]')).toMatchObject({ ok: false, reason: 'the payload is not a JSON object' });
    expect(kinds.decode('{"recipient":"a@example.com"}')).toMatchObject({ ok: false, reason: 'the payload has no "kind" field' });
    expect(kinds.decode('{"kind":"fax"}')).toMatchObject({ ok: false, kind: 'fax', reason: expect.stringMatching(/unknown kind "fax"/) });
    expect(kinds.decode(undefined, 'email')).toMatchObject({ ok: false, reason: 'the job has no payload' });
  });

  test('a bad definition is refused when the registry is built', () => {
    const attempts: [string, () => unknown][] = [
      ['kinds.1bad', () => defineKinds({ '1bad': { schema: { type: 'object' } } })],
      ['kinds.x.schema', () => defineKinds({ x: { schema: { type: 'string' } as never } })],
      ['kinds.x.schema', () => defineKinds({ x: { schema: { type: 'object', properties: { kind: { type: 'string' } } } } })],
      ['kinds.x.schema', () => defineKinds({ x: { schema: { type: 'object', properties: { a: { type: 'strin' } } } as never } })],
      ['kinds.x.maxAttempts', () => defineKinds({ x: { schema: { type: 'object' }, maxAttempts: 0 } })],
      ['kinds.x.backoff.type', () => defineKinds({ x: { schema: { type: 'object' }, backoff: { type: 'linear' } as never } })],
    ];
    for (const [field, attempt] of attempts) {
      let error: unknown;
      try {
        attempt();
      } catch (caught) {
        error = caught;
      }
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT'), field).toBe(true);
      expect((error as { field: string }).field).toBe(field);
    }
  });
});
