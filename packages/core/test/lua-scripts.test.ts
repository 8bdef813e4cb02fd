import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { readLua, SCRIPT_NAMES, SCRIPTS } from '../src/lua.ts';

const dir = new URL('../scripts/', import.meta.url);

describe('Lua scripts', () => {
  test('every .lua file is a registered script, and every registered script has a file', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.lua')).map((f) => f.replace(/\.lua$/, ''));
    expect(files.sort()).toEqual([...SCRIPT_NAMES].sort());
  });

  for (const name of SCRIPT_NAMES) {
    describe(name, () => {
      const raw = readFileSync(new URL(`${name}.lua`, dir), 'utf8');
      const header = /--\[\[([\s\S]*?)\]\]/.exec(raw)?.[1] ?? '';
      const body = SCRIPTS[name].source.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--[^\n]*/g, '');

      test('starts with a shebang with flags (Redis 7 refuses a deny-oom script up front)', () => {
        expect(raw.split('\n')[0]).toMatch(/^#!lua( flags=[a-z-]+(,[a-z-]+)*)?$/);
      });

      test('has a header listing KEYS, ARGV and what it returns', () => {
        expect(header).toMatch(/KEYS\[1(\.\.)?\]/);
        expect(header).toMatch(/ARGV\[1(\.\.)?\]/);
        expect(header).toMatch(/Returns:/);
      });

      test('uses only the KEYS its header declares', () => {
        const declared = new Set([...header.matchAll(/KEYS\[(\d+)(\.\.)?\]/g)].map((m) => Number(m[1])));
        const variadic = [...header.matchAll(/KEYS\[(\d+)\.\.\]/g)].map((m) => Number(m[1]));
        const used = [...body.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]));
        for (const index of used) {
          expect(declared.has(index) || variadic.some((start) => index >= start), `KEYS[${index}]`).toBe(true);
        }
      });

      test('has its includes expanded; uses redis.pcall only in read_hash and notice_due, which re-raise all but WRONGTYPE and NOPERM', () => {
        expect(SCRIPTS[name].source).not.toMatch(/--@include/);
        const outside = body.replace(/local function read_hash[\s\S]*?\nend\n/, '').replace(/local function notice_due[\s\S]*?\nend\n/, '');
        expect(outside).not.toMatch(/redis\.pcall/);
      });
    });
  }

  test('an include is expanded once even when two includes ask for it', () => {
    const source = readLua('fail.lua');
    expect(source.match(/local function now_ms/g)).toHaveLength(1);
    expect(source.match(/local function push_history\(/g)).toHaveLength(1);
  });
});
