import { describe, expect, test } from 'vitest';
import { flameSvg } from '../src/profile/flame-svg.ts';
import { foldPerfScript, perfGroupOf } from '../src/profile/perf-fold.ts';
import { redisProfileSection } from '../src/profile/redis-profile.ts';

// Four samples as `perf script` prints them (leaf first), 1000 µs each: two inside a script's
// HMGET, one in an unnamed allocator frame under the Lua VM (its stack ends in frames perf could
// not unwind), one in the Lua VM itself.
const SCRIPT = `redis-server  5375   441.743858:    1000000 cpu-clock:pppH:
\t          1a2b3c lpFind+0x1c (/usr/bin/redis-check-rdb)
\t          1a2b40 hmgetCommand+0x40 (/usr/bin/redis-check-rdb)
\t          1a2b50 scriptCall+0x10 (/usr/bin/redis-check-rdb)
\t          1a2b60 [unknown] (/usr/bin/redis-check-rdb)
\t          1a2b70 luaCallFunction+0x22 (/usr/bin/redis-check-rdb)
\t          1a2b80 aeMain+0x1c (/usr/bin/redis-check-rdb)

redis-server  5375   441.744858:    1000000 cpu-clock:pppH:
\t          1a2b40 hmgetCommand+0x44 (/usr/bin/redis-check-rdb)
\t          1a2b50 scriptCall+0x10 (/usr/bin/redis-check-rdb)
\t          1a2b60 [unknown] (/usr/bin/redis-check-rdb)
\t          1a2b70 luaCallFunction+0x22 (/usr/bin/redis-check-rdb)
\t          1a2b80 aeMain+0x1c (/usr/bin/redis-check-rdb)

redis-server  5375   441.745858:    1000000 cpu-clock:pppH:
\t            7a1b [unknown] (/usr/lib/x86_64-linux-gnu/libjemalloc.so.2)
\t          1a2b60 [unknown] (/usr/bin/redis-check-rdb)
\t          1a2b70 luaCallFunction+0x22 (/usr/bin/redis-check-rdb)
\t 7f69f843d008 [unknown] ([unknown])
\t 363a2a2072657672 [unknown] ([unknown])

redis-server  5375   441.746858:    1000000 cpu-clock:pppH:
\t          1a2b60 [unknown] (/usr/bin/redis-check-rdb)
\t          1a2b70 luaCallFunction+0x22 (/usr/bin/redis-check-rdb)
\t          1a2b80 aeMain+0x1c (/usr/bin/redis-check-rdb)
`;

describe('perf script folding', () => {
  test('sample periods add up per function, once per stack, and per part', () => {
    const folded = foldPerfScript(SCRIPT);
    expect(folded.samples).toBe(4);
    expect(folded.totalUs).toBe(4000);
    const inclusive = Object.fromEntries(folded.inclusive.map(({ name, us }) => [name, us]));
    expect(inclusive).toEqual({ luaCallFunction: 4000, aeMain: 3000, scriptCall: 2000, hmgetCommand: 2000, lpFind: 1000 });
    expect(folded.self.map(({ name, us }) => [name, us])).toEqual([
      ['lpFind', 1000],
      ['hmgetCommand', 1000],
      ['[unknown]', 1000],
      ['[unknown]', 1000],
    ]);
    expect(folded.self.map(({ group }) => group)).toEqual(['redis', 'redis', 'jemalloc', 'lua']);
    expect(folded.groups).toEqual([
      { group: 'redis', us: 2000 },
      { group: 'jemalloc', us: 1000 },
      { group: 'lua', us: 1000 },
    ]);
  });

  test('the tree runs from the event loop up, and an unwound-off stack starts at its last known frame', () => {
    const { root } = foldPerfScript(SCRIPT);
    expect(root.totalUs).toBe(4000);
    expect(root.children.map((child) => [child.frame.name, child.totalUs])).toEqual([
      ['aeMain', 3000],
      ['luaCallFunction', 1000],
    ]);
    const svg = flameSvg(root, 'redis <perf>');
    expect(svg).toContain('redis &lt;perf&gt;');
    expect(svg).toContain('>lua<');
    expect(svg).not.toContain('>ioredis<');
  });

  test('frames are put in their part by library and by name', () => {
    expect(perfGroupOf('tcp_sendmsg', '[kernel.kallsyms]')).toBe('kernel');
    expect(perfGroupOf('__memcmp_evex_movbe', '/usr/lib/x86_64-linux-gnu/libc.so.6')).toBe('libc');
    expect(perfGroupOf('malloc_usable_size', '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2')).toBe('jemalloc');
    expect(perfGroupOf('[unknown]', '/usr/bin/redis-check-rdb', 'lua')).toBe('lua');
    expect(perfGroupOf('[unknown]', '/usr/bin/redis-check-rdb', 'redis')).toBe('redis');
    expect(perfGroupOf('[unknown]', '/usr/bin/redis-check-rdb')).toBe('redis');
    expect(perfGroupOf('lua_pushlstring', '/usr/bin/redis-check-rdb')).toBe('lua');
    expect(perfGroupOf('hmgetCommand', '/usr/bin/redis-check-rdb')).toBe('redis');
  });

  test('an unnamed frame inside redis-server takes the part of its nearest named caller', () => {
    const script = `redis-server  1   1.0:    1000000 cpu-clock:pppH:
\t          1a2b60 [unknown] (/usr/bin/redis-check-rdb)
\t          1a2b50 call+0x10 (/usr/bin/redis-check-rdb)
\t          1a2b60 [unknown] (/usr/bin/redis-check-rdb)
\t          1a2b70 lua_pcall+0x22 (/usr/bin/redis-check-rdb)
\t          1a2b80 aeMain+0x1c (/usr/bin/redis-check-rdb)
`;
    const folded = foldPerfScript(script);
    expect(folded.groups).toEqual([{ group: 'redis', us: 1000 }]);
    const lua = folded.root.children[0]?.children[0]?.children[0];
    expect([lua?.frame.name, lua?.frame.group]).toEqual(['[unknown]', 'lua']);
  });

  test('the summary section gives each part and stage per job', () => {
    const section = redisProfileSection(foldPerfScript(SCRIPT), 10).join('\n');
    expect(section).toContain('| redis | 200.00 | 50.0% |');
    expect(section).toContain('| hmgetCommand | HMGET | 200.00 | 50.0% |');
    expect(section).not.toContain('| lrangeCommand |');
  });
});
