// A small line chart of a queue's rates, drawn as SVG with DOM calls (no chart library).

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 360;
const HEIGHT = 110;
const PAD = { left: 34, right: 6, top: 8, bottom: 16 };
export const SERIES = [
  { key: 'completedPerSecond', label: 'completed/s', className: 'line-completed' },
  { key: 'failedPerSecond', label: 'failed/s', className: 'line-failed' },
  { key: 'enqueuedPerSecond', label: 'enqueued/s', className: 'line-enqueued' },
];

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attributes
 */
function svg(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

/**
 * A nice upper bound for the y axis.
 * @param {number} max
 */
function ceiling(max) {
  if (max <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * step >= max) return m * step;
  return 10 * step;
}

/**
 * Draws the rate points into a new SVG element. `data-points` says how many points it drew.
 * @param {{ atMs: number, enqueuedPerSecond: number, completedPerSecond: number, failedPerSecond: number }[]} points
 * @param {string} title
 */
export function rateChart(points, title) {
  const root = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'chart', role: 'img', 'data-points': points.length });
  const label = svg('title', {});
  label.textContent = title;
  root.appendChild(label);
  const w = WIDTH - PAD.left - PAD.right;
  const h = HEIGHT - PAD.top - PAD.bottom;
  const top = ceiling(Math.max(0, ...points.flatMap((p) => SERIES.map((s) => p[s.key]))));
  for (const fraction of [0, 0.5, 1]) {
    const y = PAD.top + h - fraction * h;
    root.appendChild(svg('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y, y2: y, class: 'grid' }));
    const tick = svg('text', { x: PAD.left - 4, y: y + 3, class: 'tick', 'text-anchor': 'end' });
    tick.textContent = String(Math.round(top * fraction * 100) / 100);
    root.appendChild(tick);
  }
  if (points.length === 0) {
    const empty = svg('text', { x: PAD.left + w / 2, y: PAD.top + h / 2, class: 'tick', 'text-anchor': 'middle' });
    empty.textContent = 'collecting rates…';
    root.appendChild(empty);
    return root;
  }
  const first = points[0].atMs;
  const span = Math.max(1, points[points.length - 1].atMs - first);
  const x = (/** @type {number} */ at) => (points.length === 1 ? PAD.left + w : PAD.left + ((at - first) / span) * w);
  const y = (/** @type {number} */ v) => PAD.top + h - (v / top) * h;
  for (const series of SERIES) {
    const coordinates = points.map((p) => `${x(p.atMs).toFixed(1)},${y(p[series.key]).toFixed(1)}`).join(' ');
    root.appendChild(svg('polyline', { points: coordinates, class: `line ${series.className}`, 'data-series': series.key }));
  }
  const seconds = Math.round(span / 1000);
  const axis = svg('text', { x: WIDTH - PAD.right, y: HEIGHT - 3, class: 'tick', 'text-anchor': 'end' });
  axis.textContent = `last ${seconds} s`;
  root.appendChild(axis);
  return root;
}
