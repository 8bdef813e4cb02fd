/** Where `pnpm bench`'s generated results begin in the benchmarks document. */
export const RESULTS_START = '<!-- results: written by pnpm bench -->';
/** Where they end; what follows is hand-written and kept. */
export const RESULTS_END = '<!-- end of results -->';

/**
 * The benchmarks document with its generated results replaced by `report`. The hand-written
 * text before the start marker and after the end marker is kept, so the results can sit in the
 * middle of the document. Without an end marker everything after the start is replaced; without
 * either, the old text is kept above the new results.
 */
export function spliceResults(existing: string, report: string): string {
  const start = existing.indexOf(RESULTS_START);
  const before = start >= 0 ? existing.slice(0, start) : existing ? `${existing.trimEnd()}\n\n` : '# Benchmarks\n\n';
  const end = start >= 0 ? existing.indexOf(RESULTS_END, start) : -1;
  const after = end >= 0 ? existing.slice(end + RESULTS_END.length) : '\n';
  return `${before}${RESULTS_START}\n\n${report.trimEnd()}\n\n${RESULTS_END}${after}`;
}
