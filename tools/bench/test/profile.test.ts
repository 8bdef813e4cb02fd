import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { commandStatsTable, parseCommandStats } from '../src/profile/commandstats.ts';
import { escapeXml, flameSvg } from '../src/profile/flame-svg.ts';
import { busyTree, foldProfile, groupOf, type CpuProfile } from '../src/profile/fold.ts';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });
// root -> main -> (ioredis parse, core claim); root -> (idle); samples in µs.
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 5] },
    { id: 2, callFrame: frame('main', 'file:///x/packages/worker/dist/worker.js'), children: [3, 4] },
    { id: 3, callFrame: frame('parse', 'file:///x/node_modules/ioredis/built/resp/decoder.js') },
    { id: 4, callFrame: frame('claim <a&b>', 'file:///x/packages/core/dist/claim.js') },
    { id: 5, callFrame: frame('(idle)') },
  ],
  samples: [3, 3, 4, 2, 5, 5],
  timeDeltas: [100, 100, 300, 50, 1000, 1000],
};

describe('profile folding', () => {
  test('self and total times add up per frame, package and idle', () => {
    const folded = foldProfile(profile);
    expect(folded.busyUs).toBe(550);
    expect(folded.idleUs).toBe(2000);
    expect(folded.root.totalUs).toBe(2550);
    expect(folded.root.children[0]?.totalUs).toBe(550);
    expect(folded.groups).toEqual([
      { group: '@jobs/core', selfUs: 300 },
      { group: 'ioredis', selfUs: 200 },
      { group: '@jobs/worker', selfUs: 50 },
    ]);
    expect(folded.functions[0]?.frame.name).toBe('claim <a&b>');
    expect(busyTree(folded.root).totalUs).toBe(550);
  });

  test('frames are grouped by the package their script is in', () => {
    expect(groupOf('x', 'file:///a/node_modules/.pnpm/ajv@8/node_modules/ajv/dist/x.js')).toBe('ajv');
    expect(groupOf('x', 'node:internal/stream_base_commons')).toBe('node');
    expect(groupOf('(garbage collector)', '')).toBe('GC');
    expect(groupOf('writeUtf8String', '')).toBe('native');
  });

  test('the flame graph escapes every name and draws a rect per visible frame', () => {
    const svg = flameSvg(foldProfile(profile).root, 'a <title> & more');
    expect(svg).toContain('claim &lt;a&amp;b&gt;');
    expect(svg).not.toContain('<a&b>');
    expect(svg).toContain('a &lt;title&gt; &amp; more');
    expect(svg.match(/<rect [^>]*height="15"/g)).toHaveLength(5);
    expect(escapeXml(`"'`)).toBe('&quot;&apos;');
  });

  test('commandstats lines are read per command and shown per job', () => {
    const stats = parseCommandStats('# Commandstats\r\ncmdstat_hmget:calls=300,usec=600,usec_per_call=2.00,rejected_calls=0\r\ncmdstat_fcall:calls=10,usec=3000,usec_per_call=300\r\ncmdstat_config|resetstat:calls=1,usec=5\r\n');
    expect(stats).toEqual([
      { command: 'fcall', calls: 10, usec: 3000 },
      { command: 'hmget', calls: 300, usec: 600 },
      { command: 'config|resetstat', calls: 1, usec: 5 },
    ]);
    const table = commandStatsTable(stats, 100);
    expect(table).toContain('| hmget | 3.000 | 6.00 | 2.00 |');
    expect(table).not.toContain('resetstat');
    expect(table).toContain('Commands per job, scripts\' inner commands included and the scripts themselves not: 3.00.');
  });
});

describe('bench:profile against a real Redis (tiny size)', () => {
  test('writes the profile, both flame graphs and a summary with the script calls', async () => {
    const out = mkdtempSync(join(tmpdir(), 'jobs-profile-'));
    const cli = new URL('../dist/profile/cli.js', import.meta.url).pathname;
    await promisify(execFile)(process.execPath, [cli, '--scenario', 'process-16', '--n', '300', '--out', out], { timeout: 120_000 });
    const raw = JSON.parse(readFileSync(join(out, 'worker.cpuprofile'), 'utf8')) as CpuProfile;
    expect(raw.samples.length).toBeGreaterThan(0);
    for (const file of ['flame.svg', 'flame-busy.svg']) expect(readFileSync(join(out, file), 'utf8')).toMatch(/^<\?xml[\s\S]*<rect [\s\S]*<\/svg>\n$/);
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toMatch(/\| fcall \| \d+\.\d{3} \|/);
    expect(summary).toContain('## Top 30 functions by self time');
  }, 150_000);
});
