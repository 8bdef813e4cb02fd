import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { ASSETS } from '../src/assets.generated.ts';

const dir = new URL('../src/assets/', import.meta.url);

describe('the dashboard page ships inside the package code', () => {
  test('assets.generated.ts holds every asset file as it is now (run the build after editing one)', () => {
    const files = readdirSync(dir).sort();
    expect(Object.keys(ASSETS).sort()).toEqual(files);
    for (const name of files) expect(ASSETS[name], name).toBe(readFileSync(new URL(name, dir), 'utf8'));
  });

  test('the pages load nothing from elsewhere and carry no inline script or style', () => {
    for (const [name, body] of Object.entries(ASSETS)) {
      expect(body, name).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
      expect(body, name).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
      if (name.endsWith('.html')) {
        expect(body, name).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
        expect(body, name).not.toMatch(/<style|\sstyle=|\son[a-z]+=/);
      }
    }
  });
});
