/**
 * Folds a V8 CPU profile (`.cpuprofile`, as `node:inspector`'s Profiler.stop returns it) into
 * what a reader of a flame graph wants: sample time per stack, self time per function, and
 * self time per package.
 */

/** The parts of a V8 CPU profile this module reads. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** One frame of a folded stack. */
export interface Frame {
  name: string;
  url: string;
  line: number;
  group: string;
}

/** A call tree node with its total and self time in µs. */
export interface TreeNode {
  frame: Frame;
  totalUs: number;
  selfUs: number;
  children: TreeNode[];
}

/** What {@link foldProfile} returns. */
export interface FoldedProfile {
  /** The call tree from the root, `(idle)` included. */
  root: TreeNode;
  /** Sampled time outside `(idle)`, in µs. */
  busyUs: number;
  idleUs: number;
  /** Self time per function (name, file and line), busiest first. */
  functions: { frame: Frame; selfUs: number }[];
  /** Self time per group (see {@link groupOf}), busiest first. */
  groups: { group: string; selfUs: number }[];
}

/** The package or runtime part a frame belongs to, by its script's URL. */
export function groupOf(functionName: string, url: string): string {
  if (url === '') return functionName === '(garbage collector)' ? 'GC' : functionName === '(idle)' ? 'idle' : 'native';
  if (url.includes('/ioredis/')) return 'ioredis';
  if (url.includes('/ajv/')) return 'ajv';
  for (const name of ['core', 'worker', 'producer']) if (url.includes(`/packages/${name}/`) || url.includes(`/@jobs/${name}/`)) return `@jobs/${name}`;
  if (url.startsWith('node:')) return 'node';
  return 'other';
}

/** Folds `profile` (see {@link FoldedProfile}). */
export function foldProfile(profile: CpuProfile): FoldedProfile {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfById = new Map<number, number>();
  profile.samples.forEach((id, i) => selfById.set(id, (selfById.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const functions = new Map<string, { frame: Frame; selfUs: number }>();
  const groups = new Map<string, number>();
  let idleUs = 0;
  const build = (id: number): TreeNode => {
    const node = byId.get(id);
    if (node === undefined) throw new Error(`the profile has no node ${id}`);
    const { functionName, url, lineNumber } = node.callFrame;
    const frame: Frame = { name: functionName || '(anonymous)', url, line: lineNumber + 1, group: groupOf(functionName, url) };
    const selfUs = selfById.get(id) ?? 0;
    if (frame.group === 'idle') idleUs += selfUs;
    else if (selfUs > 0) {
      const key = `${frame.name} ${url}:${frame.line}`;
      const entry = functions.get(key) ?? { frame, selfUs: 0 };
      entry.selfUs += selfUs;
      functions.set(key, entry);
      groups.set(frame.group, (groups.get(frame.group) ?? 0) + selfUs);
    }
    const children = (node.children ?? []).map(build);
    return { frame, selfUs, totalUs: selfUs + children.reduce((sum, child) => sum + child.totalUs, 0), children };
  };
  const root = build(profile.nodes[0]?.id ?? 1);
  const busyUs = [...groups.values()].reduce((sum, us) => sum + us, 0);
  return {
    root,
    busyUs,
    idleUs,
    functions: [...functions.values()].sort((a, b) => b.selfUs - a.selfUs),
    groups: [...groups].map(([group, selfUs]) => ({ group, selfUs })).sort((a, b) => b.selfUs - a.selfUs),
  };
}

/** The tree without `(idle)` and `(program)` (time V8 attributes to no script): the busy part alone. */
export function busyTree(root: TreeNode): TreeNode {
  const keep = (node: TreeNode): TreeNode | undefined => {
    if (node.frame.group === 'idle' || node.frame.name === '(program)') return undefined;
    const children = node.children.map(keep).filter((child): child is TreeNode => child !== undefined);
    const totalUs = node.selfUs + children.reduce((sum, child) => sum + child.totalUs, 0);
    return totalUs > 0 ? { ...node, children, totalUs } : undefined;
  };
  return keep(root) ?? { ...root, children: [], totalUs: 0 };
}
