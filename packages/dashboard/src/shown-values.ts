// What the API sends for values read from hashes that anyone with write access to Redis may have
// filled: times a browser can draw, and texts of a size a page can hold.

/** The latest time a JavaScript `Date` holds (±100,000,000 days from the epoch). */
const MAX_DATE_MS = 8.64e15;

/** The most characters of one text a job's detail shows. */
export const DETAIL_CHARS = 100_000;

/** The deepest nesting of a parsed value the detail sends as a structure; a deeper one goes as its text. */
const DETAIL_DEPTH = 200;

/** True when arrays and objects nest in `value` more than `max` deep (walked without recursion). */
function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= max) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * A parsed value (a payload, a result) for the detail view: as parsed, unless its stored text is
 * too long to show whole or it nests deeper than a page (or `JSON.stringify`) can draw: then its
 * text, cut.
 */
export function detailValue(parsed: unknown, raw: string | undefined): unknown {
  if (raw !== undefined && (raw.length > DETAIL_CHARS || deeperThan(parsed, DETAIL_DEPTH))) return detailText(raw);
  return typeof parsed === 'string' ? detailText(parsed) : parsed;
}

/** A Unix millisecond time as the page can draw it, or null for none or one no `Date` can hold. */
export function shownTime(ms: unknown): number | null {
  return typeof ms === 'number' && Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? ms : null;
}

/** A count or duration as the page can draw it: a finite number, else null. */
export function shownNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * `text` cut to at most `max` characters (then ending in "…"), never between the two halves of a
 * surrogate pair, so the cut text is still well-formed.
 */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** A text for the detail view: whole up to {@link DETAIL_CHARS}, else cut with how much was left out. */
export function detailText(text: string): string {
  return text.length <= DETAIL_CHARS ? text : `${clipText(text, DETAIL_CHARS)} (${(text.length - DETAIL_CHARS).toLocaleString('en-US')} more characters not shown)`;
}
