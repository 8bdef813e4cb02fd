import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions } from '@jobs/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { TOKENS } from './dashboard-client.ts';

/** Where the browser tests leave their screenshots. */
export const RESULTS = fileURLToPath(new URL('../test-results/', import.meta.url));

/**
 * Where the tests write the README's screenshots: docs/ when `JOBS_DASHBOARD_SCREENSHOTS=docs`
 * (run the browser tests so to refresh them), else beside the other results.
 */
export const SCREENSHOTS = process.env.JOBS_DASHBOARD_SCREENSHOTS === 'docs' ? fileURLToPath(new URL('../docs/', import.meta.url)) : RESULTS;

/** A Chromium for the tests of the calling `describe`: launched before them, closed after. */
export function suiteBrowser(): { readonly current: Browser } {
  const holder = {} as { current: Browser };
  beforeAll(async () => {
    holder.current = await chromium.launch(chromiumLaunchOptions());
    mkdirSync(RESULTS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await holder.current?.close();
  });
  return holder;
}

/** Signs `page` in at the dashboard at `url` with `token`, through the login form, as a person would. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await expect.poll(() => page.url()).toMatch(/\/login$/);
  await page.fill('#token', token);
  await page.click('#login-form button[type=submit]');
  await expect.poll(() => page.locator('#role').textContent()).toBe(token === TOKENS.viewer ? 'viewer' : 'operator');
}

/**
 * Collects what must not happen on a page: script errors, and console errors (a refused CSP
 * directive is one). Read `problems` at the end of a test: it should be empty.
 */
export function watchPage(page: Page): { readonly problems: string[] } {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // A request the test meant to fail (a 403, a 404) logs a resource error: not the page's fault.
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  return { problems };
}

/** The page's width beyond its viewport, in CSS pixels (0 when nothing overflows sideways). */
export function overflowX(page: Page): Promise<number> {
  // Runs in the page: the test's own types have no DOM.
  return page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

/** A POST the page sent to the dashboard's API, as the real server received it. */
export interface SentPost {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

/**
 * Records the POSTs `page` sends to the API, in order, as they leave the browser: the requests
 * are only watched, the real server answers them.
 */
export function watchPosts(page: Page): SentPost[] {
  const sent: SentPost[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'POST' && url.pathname.includes('/api/')) sent.push({ path: url.pathname, body: (request.postDataJSON() ?? {}) as Record<string, unknown> });
  });
  return sent;
}
