import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { SCRIPT_JOB_OPTION_NAMES } from '../src/commands/enqueue.ts';
import { JOBS_ERROR_CODES } from '../src/errors.ts';
import { ADMISSION_KEY_SUFFIXES, BATCH_KEY_SUFFIXES, DEDUPE_KEY_SUFFIXES, WORKER_KEY_SUFFIXES, METRICS_KEY_SUFFIXES } from '../src/keys.ts';
import { SCRIPT_ERROR_CODES } from '../src/generated/constants.ts';
import { SCRIPTS } from '../src/generated/index.ts';
import { expandLua, generateScripts, scriptNames } from '../tools/generate-scripts.mjs';

const dir = new URL('../scripts/', import.meta.url);
const generatedDir = new URL('../src/generated/', import.meta.url);

describe('Lua scripts', () => {
  test('every .lua file is a generated script, and every generated script has a file', () => {
    expect(scriptNames()).toEqual(Object.keys(SCRIPTS).sort());
  });

  test('src/generated is up to date with scripts/ (else: pnpm --filter @jobs/core run generate)', () => {
    const files = generateScripts();
    expect(readdirSync(generatedDir).sort()).toEqual([...files.keys()].sort());
    for (const [file, text] of files) expect(readFileSync(new URL(file, generatedDir), 'utf8'), file).toBe(text);
  });

  test("the job options the enqueue command names are the ones lib/write-job.lua reads, each typed", () => {
    const lua = readFileSync(new URL('lib/write-job.lua', dir), 'utf8');
    const table = /local JOB_OPTION_TYPES = \{([^}]*)\}/.exec(lua)?.[1] ?? '';
    const names = [...table.matchAll(/(\w+) = '([nis])'/g)].map((match) => match[1]);
    expect(names.sort()).toEqual(Object.keys(SCRIPT_JOB_OPTION_NAMES).sort());
  });

  test('every error code a script replies with is a JobsError code', () => {
    const codes: readonly string[] = Object.values(JOBS_ERROR_CODES);
    expect(SCRIPT_ERROR_CODES.length).toBeGreaterThan(0);
    for (const code of SCRIPT_ERROR_CODES) expect(codes, code).toContain(code);
  });

  test('no script derives a key or channel by cutting a string: every name comes in KEYS or ARGV', () => {
    for (const script of Object.values(SCRIPTS)) {
      const body = script.source.replace(/--\[\[[\s\S]*?\n\]\]/g, '').replace(/--[^\n]*/g, '');
      expect(body, script.name).not.toMatch(/string\.sub|string\.gsub|:sub\(|:gsub\(/);
    }
  });

  test('lib/admission.lua builds the admission keys by appending the suffixes keys.ts uses to the queue prefix', () => {
    const admission = readFileSync(new URL('lib/admission.lua', dir), 'utf8');
    // The resume list reaches its script in KEYS; the others are built from the prefix in ARGV.
    for (const [name, suffix] of Object.entries(ADMISSION_KEY_SUFFIXES)) if (name !== 'resume') expect(admission, name).toContain(`prefix .. '${suffix}'`);
  });

  test('lib/live-workers.lua builds the worker registry keys by appending the suffixes keys.ts uses to the queue prefix', () => {
    const registry = readFileSync(new URL('lib/live-workers.lua', dir), 'utf8');
    for (const [name, suffix] of Object.entries(WORKER_KEY_SUFFIXES)) expect(registry, name).toContain(`prefix .. '${suffix}'`);
  });

  test('lib/dedupe.lua builds the dedupe keys by appending the suffixes keys.ts uses to the queue prefix', () => {
    const dedupe = readFileSync(new URL('lib/dedupe.lua', dir), 'utf8');
    for (const [name, suffix] of Object.entries(DEDUPE_KEY_SUFFIXES)) expect(dedupe, name).toContain(`prefix .. '${suffix}'`);
  });

  test('lib/batch.lua builds the batch keys by appending the suffixes keys.ts uses to the queue prefix', () => {
    const batch = readFileSync(new URL('lib/batch.lua', dir), 'utf8');
    for (const [name, suffix] of Object.entries(BATCH_KEY_SUFFIXES)) expect(batch, name).toContain(`prefix .. '${suffix}'`);
  });

  test('lib/metrics.lua builds the metrics history keys by appending the suffixes keys.ts uses to the queue prefix', () => {
    const metrics = readFileSync(new URL('lib/metrics.lua', dir), 'utf8');
    for (const [name, suffix] of Object.entries(METRICS_KEY_SUFFIXES)) expect(metrics, name).toContain(`prefix .. '${suffix}'`);
  });

  for (const [name, script] of Object.entries(SCRIPTS)) {
    describe(name, () => {
      const raw = readFileSync(new URL(`${name}.lua`, dir), 'utf8');
      const header = /--\[\[([\s\S]*?)\n\]\]/.exec(raw)?.[1] ?? '';
      const body = script.source.replace(/--\[\[[\s\S]*?\n\]\]/g, '').replace(/--[^\n]*/g, '');

      test('starts with a shebang with flags (Redis 7 refuses a deny-oom script up front)', () => {
        expect(raw.split('\n')[0]).toMatch(/^#!lua( flags=[a-z-]+(,[a-z-]+)*)?$/);
      });

      test('has a header naming its KEYS and ARGV, and saying what it returns and its reply type', () => {
        expect(header).toMatch(/KEYS\[1(\.\.)?\]\s+[a-z]\w*:/);
        expect(header).toMatch(/ARGV\[1(\.\.)?\]\s+[a-z]\w*:/);
        expect(header).toMatch(/Returns:/);
        expect(header).toMatch(/Reply:/);
      });

      test('uses only the KEYS its header declares', () => {
        const declared = new Set([...header.matchAll(/KEYS\[(\d+)(\.\.)?\]/g)].map((m) => Number(m[1])));
        const variadic = [...header.matchAll(/KEYS\[(\d+)\.\.\]/g)].map((m) => Number(m[1]));
        const used = [...body.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1]));
        for (const index of used) {
          expect(declared.has(index) || variadic.some((start) => index >= start), `KEYS[${index}]`).toBe(true);
        }
      });

      test('its generated builder puts the keys, then the arguments, in header order', () => {
        expect(script.keyNames.length).toBe(declaredCount(header, 'KEYS'));
        expect(script.argNames.length).toBe(declaredCount(header, 'ARGV'));
      });

      test('has its includes expanded; uses redis.pcall only in read_hash, publish_courtesy and heard_channel, which re-raise all but WRONGTYPE and NOPERM', () => {
        expect(script.source).not.toMatch(/--@include/);
        const outside = body.replace(/local function read_hash[\s\S]*?\nend\n/, '').replace(/local function publish_courtesy[\s\S]*?\nend\n/, '').replace(/local function heard_channel[\s\S]*?\nend\n/, '');
        expect(outside).not.toMatch(/redis\.pcall/);
      });
    });
  }

  test('an include is expanded once even when two includes ask for it', () => {
    const source = expandLua('fail.lua');
    expect(source.match(/local function now_ms/g)).toHaveLength(1);
    expect(source.match(/local function push_history\(/g)).toHaveLength(1);
  });
});

function declaredCount(header: string, kind: 'KEYS' | 'ARGV'): number {
  return new Set([...header.matchAll(new RegExp(`${kind}\\[(\\d+)(\\.\\.)?\\]`, 'g'))].map((m) => m[1])).size;
}
