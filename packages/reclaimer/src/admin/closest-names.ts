/** The edit distance of `a` and `b`: insertions, deletions and substitutions. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length] as number;
}

/**
 * `names` ordered for someone who mistyped `wanted`: the closest first (then by name), and the
 * one a typo would explain (a few edits away), if any.
 */
export function closestNames(wanted: string, names: readonly string[]): { ordered: string[]; suggestion: string | undefined } {
  const scored = names.map((name) => ({ name, distance: editDistance(wanted, name) })).sort((x, y) => x.distance - y.distance || x.name.localeCompare(y.name));
  const best = scored[0];
  const typo = best !== undefined && best.distance <= Math.max(2, Math.floor(wanted.length / 4));
  return { ordered: scored.map(({ name }) => name), suggestion: typo ? best.name : undefined };
}
