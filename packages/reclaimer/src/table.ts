/** Renders rows as a plain text table with a header, columns padded to their widest cell. */
export function renderTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [headers, ...rows.map((row) => row.map((cell) => String(cell)))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  return cells.map((row) => row.map((cell, column) => (cell ?? '').padEnd(widths[column] ?? 0)).join('  ').trimEnd()).join('\n');
}

/** Renders pairs as a two-column table without a header. */
export function renderPairs(pairs: readonly (readonly [string, string | number])[]): string {
  const width = Math.max(0, ...pairs.map(([key]) => key.length));
  return pairs.map(([key, value]) => `${key.padEnd(width)}  ${String(value)}`).join('\n');
}

/** A short, human duration: 850ms, 12s, 4m, 3h, 2d. */
export function humanDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Math.round(ms / 1_000)}s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)}m`;
  if (ms < 86_400_000) return `${Math.round(ms / 3_600_000)}h`;
  return `${Math.round(ms / 86_400_000)}d`;
}
