import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { redisTest as test, within } from '@jobs/testing';
import express from 'express';
import { describe, expect } from 'vitest';
import { expressDashboard } from '../src/adapters/express.ts';
import { TOKENS } from './dashboard-client.ts';
import { signIn, suiteBrowser } from './dashboard-page.ts';
import { BASE_PATH, mountedDashboardFixture } from './mounted-dashboard.ts';

describe('the page mounted under a path, in Chromium', () => {
  const browser = suiteBrowser();

  test('signs in, draws the queue, cancels a job and signs out, every request under the base path', async ({ redis, queueName }) => {
    const { queue, jobId, dashboard } = await mountedDashboardFixture(redis, queueName);
    const app = express();
    app.use(BASE_PATH, expressDashboard(dashboard));
    const server = await new Promise<Server>((resolve, reject) => {
      const listening = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(listening)));
    });
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 900 } });
    const requested: string[] = [];
    const failed: string[] = [];
    const pageErrors: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    page.on('response', (response) => void (response.status() >= 400 && failed.push(`${response.status()} ${response.url()}`)));
    page.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      await signIn(page, `${origin}${BASE_PATH}/?poll=500`, TOKENS.operator);
      const card = page.locator(`article[data-queue="${queueName}"]`);
      await expect.poll(() => card.locator('[data-stat="pending"] dd').textContent()).toBe('1');
      await card.locator('h2 a').click();
      await page.click('[data-state="pending"]');
      expect(new URL(page.url()).pathname).toBe(`${BASE_PATH}/queues/${queueName}/pending`);
      await page.locator(`#jobs tbody tr[data-id="${jobId}"] a`).click();
      expect(new URL(page.url()).pathname).toBe(`${BASE_PATH}/queues/${queueName}/jobs/${jobId}`);
      // A reload of the job's URL opens the job's page again, under the base path.
      await page.reload();
      await expect.poll(() => page.locator('#job-status').textContent()).toBe('pending');
      await page.click('#job-cancel');
      await expect.poll(() => page.locator('#message').textContent()).toBe(`cancelled job ${jobId}`);
      expect((await queue.getJob(jobId))?.status).toBe('cancelled');
      // A poll in flight at sign-out may meet the ended session (401): only answers before it count.
      const failedBeforeSignOut = [...failed];
      await page.click('#sign-out');
      await expect.poll(() => page.url()).toBe(`${origin}${BASE_PATH}/login`);
      expect(pageErrors).toEqual([]);
      expect(failedBeforeSignOut).toEqual([]);
      expect(requested.length).toBeGreaterThan(5);
      expect(requested.filter((path) => !path.startsWith(`${BASE_PATH}/`))).toEqual([]);
    } finally {
      await page.close();
      server.closeAllConnections();
      await within(new Promise<void>((resolve) => server.close(() => resolve())), 10_000, () => 'closing the express server');
    }
  });
});
