import { describe, expect, test } from 'vitest';
import { RESULTS_END, RESULTS_START, spliceResults } from '../src/results-section.ts';

describe('writing the generated results into the benchmarks document', () => {
  test('replaces only what lies between the markers, keeping the text on both sides', () => {
    const doc = `# Benchmarks\n\nintro\n\n${RESULTS_START}\n\n## Results\n\nold figures\n\n${RESULTS_END}\n\n## Cost per job\n\nkept\n`;
    const out = spliceResults(doc, '## Results\n\nnew figures\n');
    expect(out).toBe(`# Benchmarks\n\nintro\n\n${RESULTS_START}\n\n## Results\n\nnew figures\n\n${RESULTS_END}\n\n## Cost per job\n\nkept\n`);
  });

  test('running twice gives the same document', () => {
    const doc = `# B\n\n${RESULTS_START}\n\nold\n\n${RESULTS_END}\n\n## After\n`;
    const once = spliceResults(doc, 'new\n');
    expect(spliceResults(once, 'new\n')).toBe(once);
  });

  test('without an end marker, everything after the start is replaced', () => {
    const out = spliceResults(`# B\n\nintro\n\n${RESULTS_START}\n\nold\n\n## Old tail\n`, 'new\n');
    expect(out).toBe(`# B\n\nintro\n\n${RESULTS_START}\n\nnew\n\n${RESULTS_END}\n`);
  });

  test('a document without markers is kept above the results, and no document starts one', () => {
    expect(spliceResults('# B\n\nintro\n', 'new\n')).toBe(`# B\n\nintro\n\n${RESULTS_START}\n\nnew\n\n${RESULTS_END}\n`);
    expect(spliceResults('', 'new\n')).toBe(`# Benchmarks\n\n${RESULTS_START}\n\nnew\n\n${RESULTS_END}\n`);
  });
});
