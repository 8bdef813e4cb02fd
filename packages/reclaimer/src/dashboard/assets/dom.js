// Builds DOM nodes. Text goes in through text nodes only, never as HTML, so every value the
// server sends is shown as text, whatever it holds.

/**
 * An element with attributes and children. Children are nodes or text (null and false are skipped).
 * @param {string} tag
 * @param {Record<string, string | number | boolean | ((event: Event) => void) | undefined>} [attributes]
 * @param {...(Node | string | number | null | undefined | false)} children
 * @returns {HTMLElement}
 */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') node.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) node.setAttribute(name, '');
    else node.setAttribute(name, String(value));
  }
  append(node, children);
  return node;
}

/**
 * Appends children (nodes or text) to a node.
 * @param {Node} node
 * @param {(Node | string | number | null | undefined | false)[]} children
 */
export function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replaces a node's children.
 * @param {Node} node
 * @param {...(Node | string | number | null | undefined | false)} children
 */
export function replace(node, ...children) {
  while (node.firstChild) node.removeChild(node.firstChild);
  append(node, children);
}

/**
 * A duration in words: 850 ms, 12 s, 4 min, 3 h, 2 d.
 * @param {number | null | undefined} ms
 */
export function duration(ms) {
  if (ms === null || ms === undefined) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} d`;
}

/**
 * A Unix millisecond time as an ISO string, or a dash.
 * @param {number | null | undefined} ms
 */
export function time(ms) {
  return typeof ms === 'number' ? new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC') : '–';
}

/**
 * A whole number with thousands separators.
 * @param {number} n
 */
export function count(n) {
  return Number(n).toLocaleString('en-US');
}
