import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { buildAssets } from '../scripts/dashboard-assets.mjs';
import { ASSETS } from '../src/assets.generated.ts';

const ui = new URL('../ui/', import.meta.url);
/** XML namespace names in the libraries' code: identifiers, never fetched. */
const NAMESPACES = /https?:\/\/www\.w3\.org\/(1998\/Math\/MathML|1999\/xhtml|1999\/xlink|2000\/svg|XML\/1998\/namespace)/g;

describe('the dashboard page ships inside the package code', () => {
  test('assets.generated.ts holds the page as ui/ builds now (run the build after editing ui/)', async () => {
    const built = await buildAssets();
    expect(Object.keys(ASSETS).sort()).toEqual(['app.css', 'app.js', 'index.html', 'login.html']);
    expect(Object.keys(built).sort()).toEqual(Object.keys(ASSETS).sort());
    // Compared as a flag: a diff of minified bundles says nothing.
    for (const [name, body] of Object.entries(built)) expect(ASSETS[name] === body, `${name} is stale: run the build`).toBe(true);
  }, 60_000);

  test('the pages load nothing from elsewhere and carry no inline script or style', () => {
    for (const [name, body] of Object.entries(ASSETS)) {
      expect(body.replace(NAMESPACES, ''), name).not.toMatch(/https?:\/\//);
      expect(body, name).not.toMatch(/\beval\(|new Function\(|document\.write/);
      if (name.endsWith('.html')) {
        expect(body, name).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
        expect(body, name).not.toMatch(/<style|\sstyle=|\son[a-z]+=/);
      }
    }
  });

  test('the views write text only: no HTML strings, no dangerouslySetInnerHTML', () => {
    const files = readdirSync(ui).filter((name) => /\.(tsx?|html)$/.test(name));
    expect(files.length).toBeGreaterThan(10);
    for (const name of files) {
      const source = readFileSync(new URL(name, ui), 'utf8');
      expect(source, name).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|dangerouslySetInnerHTML|document\.write/);
    }
  });
});
