import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions } from '@jobs/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { TOKENS } from './dashboard-client.ts';

/** Where the browser tests leave their screenshots. */
export const RESULTS = fileURLToPath(new URL('../test-results/', import.meta.url));

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
