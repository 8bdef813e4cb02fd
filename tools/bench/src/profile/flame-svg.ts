import type { TreeNode } from './fold.ts';

const WIDTH = 1200;
const ROW = 16;
/** Frames narrower than this share of the root are left out (they would be unreadable). */
const MIN_SHARE = 0.001;

const COLOURS: Record<string, string> = {
  ioredis: '#e8a33d',
  '@jobs/core': '#4f8fd8',
  '@jobs/worker': '#52b788',
  '@jobs/producer': '#8e7cc3',
  ajv: '#c27ba0',
  node: '#b0b0b0',
  GC: '#e06666',
  native: '#d9d9a0',
  other: '#cccccc',
  idle: '#f3f3f3',
  redis: '#d05050',
  lua: '#4f8fd8',
  kernel: '#e8a33d',
  libc: '#b0b0b0',
  jemalloc: '#c27ba0',
};

/** Text safe inside an SVG element or attribute. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string);
}

function depthOf(node: TreeNode): number {
  return 1 + Math.max(0, ...node.children.map(depthOf));
}

/**
 * A flame graph of `root`: the root at the bottom, each frame as wide as its total time, callers
 * below callees, coloured by package; each frame's tooltip names it, its file and line, its total
 * and self time.
 */
export function flameSvg(root: TreeNode, title: string): string {
  const total = root.totalUs || 1;
  const depth = depthOf(root);
  const height = (depth + 2) * ROW;
  const rects: string[] = [];
  const groups = new Set<string>();
  const draw = (node: TreeNode, x: number, level: number): void => {
    const width = (node.totalUs / total) * WIDTH;
    if (node.totalUs / total < MIN_SHARE) return;
    const y = height - (level + 1) * ROW;
    const where = node.frame.url ? `${node.frame.url.split('/').slice(-3).join('/')}${node.frame.line > 0 ? `:${node.frame.line}` : ''}` : 'native';
    const tip = `${node.frame.name} (${where}) total ${(node.totalUs / 1000).toFixed(1)} ms (${((node.totalUs / total) * 100).toFixed(1)}%), self ${(node.selfUs / 1000).toFixed(1)} ms`;
    const label = width > 40 ? `<text x="${(x + 3).toFixed(1)}" y="${(y + ROW - 4).toFixed(1)}">${escapeXml(node.frame.name.slice(0, Math.floor(width / 7)))}</text>` : '';
    groups.add(COLOURS[node.frame.group] ? node.frame.group : 'other');
    rects.push(`<g><title>${escapeXml(tip)}</title><rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(width - 0.5, 0.5).toFixed(1)}" height="${ROW - 1}" fill="${COLOURS[node.frame.group] ?? COLOURS.other}"/>${label}</g>`);
    let at = x;
    for (const child of node.children) {
      draw(child, at, level + 1);
      at += (child.totalUs / total) * WIDTH;
    }
  };
  draw(root, 0, 0);
  const legend = Object.entries(COLOURS)
    .filter(([group]) => groups.has(group))
    .map(([group, colour], i) => `<rect x="${i * 110}" y="2" width="10" height="10" fill="${colour}"/><text x="${i * 110 + 14}" y="11">${escapeXml(group)}</text>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height + ROW}" font-family="monospace" font-size="11">
<text x="0" y="${ROW + 12}" font-size="13">${escapeXml(title)}</text>
${legend}
${rects.join('\n')}
</svg>
`;
}
