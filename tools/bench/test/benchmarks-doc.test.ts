import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { RESULTS_END, RESULTS_START } from '../src/results-section.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const doc = readFileSync(join(root, 'docs', 'BENCHMARKS.md'), 'utf8');

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replaceAll(' ', '-');

const anchors = new Set([...doc.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1] as string)));

/** The Markdown files a reader follows into the benchmarks page from. */
function markdownFiles(): string[] {
  const files = ['README.md', 'CONTRIBUTING.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))];
  for (const dir of ['packages', 'tools', 'apps']) {
    if (!existsSync(join(root, dir))) continue;
    for (const name of readdirSync(join(root, dir))) if (existsSync(join(root, dir, name, 'README.md'))) files.push(join(dir, name, 'README.md'));
  }
  return files;
}

describe('docs/BENCHMARKS.md', () => {
  test('every link into it, from any README or doc, names a heading it has', () => {
    const links: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(join(root, file), 'utf8');
      const ownLinks = file === join('docs', 'BENCHMARKS.md') ? [...text.matchAll(/\]\(#([^)]+)\)/g)] : [];
      for (const match of [...text.matchAll(/BENCHMARKS\.md#([^)\s]+)/g), ...ownLinks]) links.push(`${file} -> #${match[1] as string}`);
    }
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(anchors, link).toContain(link.slice(link.indexOf('#') + 1));
  });

  test('holds the generated results once, between their two markers, with hand-written text after them', () => {
    const start = doc.indexOf(RESULTS_START);
    const end = doc.indexOf(RESULTS_END);
    expect(start).toBeGreaterThan(0);
    expect(doc.indexOf(RESULTS_START, start + 1)).toBe(-1);
    expect(end).toBeGreaterThan(start);
    expect(doc.slice(start, end)).toMatch(/\n## Results\n[\s\S]*\n### Targets\n/);
    expect(doc.slice(end)).toMatch(/\n## Cost per job\n/);
  });
});
