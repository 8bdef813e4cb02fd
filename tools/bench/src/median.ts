/**
 * The median of the finite numbers in `values` (the mean of the middle two for an even count);
 * NaN when there are none. Every bench table reports medians over repetitions through this.
 */
export function median(values: readonly (number | undefined)[]): number {
  const sorted = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
