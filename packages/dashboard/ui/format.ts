// How numbers, times and durations read on the page: a dash for anything not drawable.

/** The latest time a `Date` holds: beyond it `toISOString` throws. */
const MAX_DATE_MS = 8.64e15;

/** A duration in words: 850 ms, 12 s, 4 min, 3 h, 2 d. */
export function duration(ms: unknown): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return '–';
  if (ms < 0) return `-${duration(-ms)}`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `${Math.round(ms / 3_600_000)} h`;
  return `${Math.round(ms / 86_400_000)} d`;
}

/** A Unix millisecond time as `2026-01-02 03:04:05.678 UTC`. */
export function time(ms: unknown): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || Math.abs(ms) > MAX_DATE_MS) return '–';
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC');
}

/** A number with thousands separators. */
export function count(n: unknown): string {
  return typeof n === 'number' && Number.isFinite(n) ? n.toLocaleString('en-US') : '–';
}

/** Attempts as "3/5" (or "3 of 5"), with a question mark for a count the hash did not hold. */
export function attemptsText(attempts: unknown, maxAttempts: unknown, separator = '/'): string {
  const made = typeof attempts === 'number' ? String(attempts) : '?';
  return typeof maxAttempts === 'number' && maxAttempts > 0 ? `${made}${separator}${maxAttempts}` : made;
}

/** A value as indented JSON (a string as itself). */
export function pretty(value: unknown): string {
  if (value === undefined) return '–';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return '(too deeply nested to show)';
  }
}

/** "1 job", "3 jobs". */
export function jobs(n: number): string {
  return `${count(n)} job${n === 1 ? '' : 's'}`;
}

/** A `datetime-local` input's value (read as UTC) as Unix ms, or undefined. */
export function fromLocalInput(value: string): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(`${value}Z`);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Unix ms as a `datetime-local` input's value (in UTC). */
export function toLocalInput(ms: number | undefined): string {
  return ms === undefined || !Number.isFinite(ms) ? '' : new Date(ms).toISOString().slice(0, 16);
}
