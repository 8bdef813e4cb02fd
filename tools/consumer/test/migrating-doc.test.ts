import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { WORKSPACE_ROOT } from '../src/scratch-project.ts';

const guide = readFileSync(join(WORKSPACE_ROOT, 'docs', 'MIGRATING-FROM-BULLMQ.md'), 'utf8');
const snippetDir = join(WORKSPACE_ROOT, 'docs', 'migrating');
const snippets = readdirSync(snippetDir).filter((file) => file.endsWith('.ts')).sort();
const tsBlocks = [...guide.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => (match[1] as string).trimEnd());

describe('docs/MIGRATING-FROM-BULLMQ.md', () => {
  // The consumer test type-checks docs/migrating/*.ts against the packed packages; these checks
  // make sure that what it checks is what the guide shows.
  test('every @jobs snippet in the guide is one of docs/migrating/*.ts, shown whole', () => {
    const files = new Map(snippets.map((file) => [readFileSync(join(snippetDir, file), 'utf8').trimEnd(), file]));
    expect(tsBlocks.length).toBeGreaterThan(0);
    for (const block of tsBlocks) expect(files.get(block), `a ts block that is no file:\n${block.slice(0, 200)}`).toBeDefined();
  });

  test('every file of docs/migrating is shown in the guide', () => {
    for (const file of snippets) expect(tsBlocks, file).toContain(readFileSync(join(snippetDir, file), 'utf8').trimEnd());
  });

  test('its links lead somewhere: files that exist, headings that exist', () => {
    const headings = new Set(
      [...guide.matchAll(/^#+ (.+)$/gm)].map((match) =>
        (match[1] as string)
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replaceAll(' ', '-'),
      ),
    );
    const links = [...guide.matchAll(/\]\(([^)]+)\)/g)].map((match) => match[1] as string);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      if (link.startsWith('#')) expect(headings, link).toContain(link.slice(1));
      else if (!/^https?:/.test(link)) expect(existsSync(join(WORKSPACE_ROOT, 'docs', link)), link).toBe(true);
    }
  });
});
