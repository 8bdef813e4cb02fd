import { describe, expect, test } from 'vitest';
import { scriptArgs } from '../src/script-args.ts';

describe('bench script arguments', () => {
  test('the `--` pnpm passes on is dropped, once, and nothing else', () => {
    expect(scriptArgs(['--', '--n', '10'])).toEqual(['--n', '10']);
    expect(scriptArgs(['--n', '10'])).toEqual(['--n', '10']);
    expect(scriptArgs(['--', '--', '--n'])).toEqual(['--', '--n']);
    expect(scriptArgs([])).toEqual([]);
  });
});
