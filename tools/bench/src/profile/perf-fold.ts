/**
 * Folds the text `perf script` prints for a `perf record --call-graph dwarf` of redis-server into
 * the call tree that {@link flameSvg} draws and into inclusive and self time per function: where
 * Redis spends its time per job, down to the Lua VM, the reply encoder and the kernel.
 */
import type { Frame, TreeNode } from './fold.ts';

/** Self or inclusive time of one function. */
export interface FunctionTime {
  name: string;
  group: string;
  us: number;
}

/** What {@link foldPerfScript} returns. */
export interface FoldedPerf {
  /** The call tree from a synthetic root (`redis-server`), callers below callees. */
  root: TreeNode;
  /** Samples folded. */
  samples: number;
  /** Sampled time in µs (samples times the sample period). */
  totalUs: number;
  /** Self time per function, busiest first. */
  self: FunctionTime[];
  /** Time per function with everything it called, each sample counted once per function, busiest first. */
  inclusive: FunctionTime[];
  /** Self time per group (see {@link perfGroupOf}), busiest first. */
  groups: { group: string; us: number }[];
}

/** Lua's own functions and Redis's Lua glue, by name. */
const LUA_NAMES = /^(lua[A-Z_]|luaL_|lua_|ldo|lvm|lh_|luai_|f_call|resume|lua_pcall)/;

/**
 * The part of Redis or the system a frame belongs to: `kernel`, `libc`, `jemalloc`, `lua` (the
 * Lua VM and Redis's Lua glue), or `redis`. The Debian binary names Redis's functions but not
 * its static ones nor the Lua VM's internal ones: an unnamed frame inside redis-server belongs
 * to the part of its nearest named caller (`callerGroup`), so frames under `lua_pcall` are Lua's
 * and those under `call` Redis's.
 */
export function perfGroupOf(name: string, dso: string, callerGroup?: string): string {
  if (dso.includes('kernel')) return 'kernel';
  if (dso.includes('libc.so') || dso.includes('libc-')) return 'libc';
  if (dso.includes('jemalloc')) return 'jemalloc';
  if (name === '[unknown]') return /redis/.test(dso) ? (callerGroup ?? 'redis') : 'other';
  if (LUA_NAMES.test(name) || name.startsWith('scriptCall')) return 'lua';
  return 'redis';
}

interface Sample {
  /** Frames leaf first, as perf prints them. */
  frames: { name: string; dso: string }[];
  weight: number;
}

/** One frame line of `perf script`: `\t  addr symbol+0xoff (dso)`. */
const FRAME_LINE = /^\s+[0-9a-f]+\s+(.+?)\s+\(([^)]*)\)\s*$/;

function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((line) => line.trim() !== '');
    const header = lines[0];
    if (header === undefined || /^\s/.test(header)) continue;
    // The header's number before the event name is the sample's period (ns for cpu-clock).
    const period = /\s(\d+)\s+[\w:-]+:\S*\s*$/.exec(header);
    const frames: Sample['frames'] = [];
    for (const line of lines.slice(1)) {
      const match = FRAME_LINE.exec(line);
      if (!match) continue;
      const symbol = (match[1] as string).replace(/\+0x[0-9a-f]+$/, '');
      frames.push({ name: symbol, dso: match[2] as string });
    }
    if (frames.length > 0) samples.push({ frames, weight: period ? Number(period[1]) / 1000 : 0 });
  }
  return samples;
}

/** The first frames of a stack that are no call (perf's unwinder ran off the stack): dropped from the root end. */
function trimmed(frames: Sample['frames']): Sample['frames'] {
  let end = frames.length;
  while (end > 1 && frames[end - 1]?.name === '[unknown]' && frames[end - 1]?.dso === '[unknown]') end -= 1;
  return frames.slice(0, end);
}

/** Folds `perf script` output (see {@link FoldedPerf}); `fallbackPeriodUs` weighs samples whose header gives no period. */
export function foldPerfScript(text: string, fallbackPeriodUs = 1_000): FoldedPerf {
  const samples = parseSamples(text);
  const rootFrame: Frame = { name: 'redis-server', url: '', line: 0, group: 'redis' };
  const root: TreeNode = { frame: rootFrame, totalUs: 0, selfUs: 0, children: [] };
  const self = new Map<string, FunctionTime>();
  const inclusive = new Map<string, FunctionTime>();
  const groups = new Map<string, number>();
  let totalUs = 0;
  for (const sample of samples) {
    const us = sample.weight > 0 ? sample.weight : fallbackPeriodUs;
    const frames = trimmed(sample.frames);
    totalUs += us;
    root.totalUs += us;
    let node = root;
    const seen = new Set<string>();
    let named: string | undefined;
    let leafGroup = 'other';
    for (let i = frames.length - 1; i >= 0; i -= 1) {
      const { name, dso } = frames[i] as Sample['frames'][number];
      const group = perfGroupOf(name, dso, named);
      if (name !== '[unknown]' && /redis/.test(dso)) named = group;
      leafGroup = group;
      let child = node.children.find((c) => c.frame.name === name && c.frame.url === dso);
      if (!child) {
        child = { frame: { name, url: dso, line: 0, group }, totalUs: 0, selfUs: 0, children: [] };
        node.children.push(child);
      }
      child.totalUs += us;
      // An unnamed frame is no one function: it has no inclusive time of its own.
      if (name !== '[unknown]' && !seen.has(name)) {
        seen.add(name);
        const entry = inclusive.get(name) ?? { name, group, us: 0 };
        entry.us += us;
        inclusive.set(name, entry);
      }
      node = child;
    }
    node.selfUs += us;
    const leaf = frames[0] as Sample['frames'][number];
    const group = leafGroup;
    // By name and part: unnamed frames of the Lua VM and of a library are not one function.
    const selfKey = `${leaf.name} ${group}`;
    const entry = self.get(selfKey) ?? { name: leaf.name, group, us: 0 };
    entry.us += us;
    self.set(selfKey, entry);
    groups.set(group, (groups.get(group) ?? 0) + us);
  }
  const busiest = (values: Iterable<FunctionTime>): FunctionTime[] => [...values].sort((a, b) => b.us - a.us);
  return {
    root,
    samples: samples.length,
    totalUs,
    self: busiest(self.values()),
    inclusive: busiest(inclusive.values()),
    groups: [...groups].map(([group, us]) => ({ group, us })).sort((a, b) => b.us - a.us),
  };
}
