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
 * A duration in words: 850 ms, 12 s, 4 min, 3 h, 2 d; a dash for anything but a finite number.
 * @param {unknown} ms
 */
export function duration(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '–';
  if (ms < 0) return `-${duration(-ms)}`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} d`;
}

/** The latest time a `Date` holds: beyond it `toISOString` throws. */
const MAX_DATE_MS = 8.64e15;

/**
 * A Unix millisecond time as an ISO string, or a dash for anything no `Date` holds.
 * @param {unknown} ms
 */
export function time(ms) {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || Math.abs(ms) > MAX_DATE_MS) return '–';
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC');
}

/**
 * A number with thousands separators, or a dash for anything but a finite number.
 * @param {unknown} n
 */
export function count(n) {
  return typeof n === 'number' && Number.isFinite(n) ? n.toLocaleString('en-US') : '–';
}

/**
 * Attempts as "3/5" (or "3 of 5"), with a question mark for a count the hash did not hold.
 * @param {unknown} attempts
 * @param {unknown} maxAttempts
 * @param {string} [separator]
 */
export function attemptsText(attempts, maxAttempts, separator = '/') {
  const made = typeof attempts === 'number' ? String(attempts) : '?';
  return typeof maxAttempts === 'number' && maxAttempts > 0 ? `${made}${separator}${maxAttempts}` : made;
}
