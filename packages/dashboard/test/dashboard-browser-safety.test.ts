import { defineKinds, Queue, queueKeys } from '@jobs/core';
import { redisTest as test, type TestRedis } from '@jobs/testing';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { startTestDashboard, TOKENS } from './dashboard-client.ts';
import { RESULTS, signIn, suiteBrowser } from './dashboard-page.ts';
import { HOSTILE, hostileId, listHostileJobs, SCRIPT, writeHostileJobs, writeHostileSchedules } from './dashboard-hostile.ts';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { to: { type: 'string' } } } } });
const STATES = ['pending', 'waiting', 'processing', 'delayed', 'completed', 'failed'] as const;

function openQueue(redis: TestRedis, queueName: string) {
  return new Queue({ redis, queue: queueName, kinds, eventLog: true });
}

/** Elements with the hidden attribute that are drawn anyway (a style rule overriding it). */
function drawnThoughHidden(page: Page): Promise<string[]> {
  return page.locator('[hidden]').evaluateAll((nodes) => nodes.filter((node) => node.ownerDocument.defaultView?.getComputedStyle(node).display !== 'none').map((node) => node.id || node.tagName));
}

describe('the dashboard in a real browser, against hostile data and for each role', () => {
  const browser = suiteBrowser();

  test('job and schedule hashes holding any value draw every view, as text, with no page error', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const realId = await queue.enqueue('email', { to: 'real@example.com' });
    await queue.enqueue('email', { to: 'urgent@example.com' }, { priority: 1 });
    await queue.schedules.upsert({ id: 'real', kind: 'email', payload: { to: 'team@example.com' }, cron: '0 8 * * *' });
    const k = queueKeys(queueName);
    await listHostileJobs(redis, queueName, (await queue.stats()).nowMs);
    // Every field of each hostile job holds its value (its id stays one the page can open).
    await writeHostileJobs(redis, queueName, await redis.hgetall(k.job(realId)), 'enqueued_at_ms', true);
    await writeHostileSchedules(redis, queueName, await redis.hgetall(k.schedule('real')), ['next_run_ms', 'cron', 'kind', 'status']);
    const d = await startTestDashboard([queue]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 1000 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    // A poll that throws is caught by the poller and said in the message line: that is a failure too.
    const saidError = (): Promise<string | null> => page.locator('#message.error').textContent({ timeout: 1 }).catch(() => null);
    try {
      await page.goto(`${d.url}?poll=1000`);
      const card = page.locator(`article[data-queue="${queueName}"]`);
      await expect.poll(() => card.locator('[data-stat="failed"] dd').textContent(), { timeout: 15_000 }).toBe(String(HOSTILE.length));
      expect(await card.locator('[data-stat="oldest"] dd').textContent()).not.toBe('');
      await card.locator('h2 a').click();
      for (const state of STATES) {
        await page.click(`#state-tabs [data-state="${state}"]`);
        await expect.poll(() => page.locator(`#state-tabs [data-state="${state}"]`).getAttribute('aria-current'), { timeout: 15_000 }).toBe('page');
        // The rows are this state's: its hostile jobs (waiting lists the pending ones, after the real jobs).
        const listed = state === 'waiting' ? 'pending' : state;
        await expect.poll(() => page.locator(`#jobs tbody tr[data-id^="h-${listed}-"]`).count(), { message: state, timeout: 15_000 }).toBeGreaterThanOrEqual(23);
        expect(await page.locator('#jobs tbody tr[data-id]').count(), state).toBe(25);
        expect(await saidError(), state).toBeNull();
        if (state === 'failed') {
          // The page shows the newest first: all of them but the first three hostile values.
          const rows = await page.locator('#jobs tbody').textContent();
          expect(rows).toContain(SCRIPT);
          expect(rows).toContain('<img src=x onerror="window.__pwned=1">');
          await page.screenshot({ path: `${RESULTS}dashboard-hostile-list.png`, fullPage: true });
        }
      }
      await page.click('#queue-nav [data-page="schedules"]');
      const schedules = page.locator('#schedules tr[data-schedule]');
      await expect.poll(() => schedules.count(), { timeout: 15_000 }).toBe(HOSTILE.length + 1);
      expect(await page.locator('#schedules').textContent()).toContain(SCRIPT);
      for (const [i, value] of HOSTILE.entries()) {
        const id = hostileId('failed', i);
        await page.fill('#find-id', id);
        await page.click('#find-form button[type=submit]');
        await expect.poll(() => page.locator('#job-id').textContent(), { message: id, timeout: 15_000 }).toBe(id);
        expect(await saidError(), `${id}: ${String(value).slice(0, 40)}`).toBeNull();
        if (value === SCRIPT) {
          expect(await page.locator('#job-payload').textContent()).toBe(SCRIPT);
          expect(await page.locator('#job-error').textContent()).toBe(SCRIPT);
          expect(await page.locator('#job-status').textContent()).toBe(SCRIPT);
          await page.screenshot({ path: `${RESULTS}dashboard-hostile-job.png`, fullPage: true });
        }
      }
      expect(await page.locator('#overview script, #overview img, #queue script, #queue img, #job script, #job img').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(pageErrors).toEqual([]);
    } finally {
      await page.close();
      await d.close();
      await queue.close();
    }
  }, 180_000);

  test('a viewer never sees the pause-kind box or any operator control; an operator sees them', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { to: 'roles@example.com' });
    await queue.pause({ kind: 'email' });
    const d = await startTestDashboard([queue], { credentials: { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer } });
    const viewerContext = await browser.current.newContext();
    const operatorContext = await browser.current.newContext();
    try {
      const viewer = await viewerContext.newPage();
      await signIn(viewer, d.url, TOKENS.viewer);
      await viewer.locator(`article[data-queue="${queueName}"] h2 a`).click();
      await expect.poll(() => viewer.locator('#queue-actions').textContent()).toBe('read-only');
      await expect.poll(() => viewer.locator('#queue-flow [data-paused-kind="email"]').count()).toBe(1);
      expect(await viewer.locator('#kind-pause-form').isVisible()).toBe(false);
      expect(await viewer.locator('#pause-kind').isVisible()).toBe(false);
      expect(await viewer.locator('#pause-toggle, #redrive-all, #purge, [data-resume-kind]').count()).toBe(0);
      expect(await drawnThoughHidden(viewer)).toEqual([]);

      const operator = await operatorContext.newPage();
      await signIn(operator, d.url, TOKENS.operator);
      await operator.locator(`article[data-queue="${queueName}"] h2 a`).click();
      await expect.poll(() => operator.locator('#kind-pause-form').isVisible()).toBe(true);
      expect(await operator.locator('#pause-toggle').isVisible()).toBe(true);
      expect(await operator.locator('[data-resume-kind="email"]').isVisible()).toBe(true);
      expect(await drawnThoughHidden(operator)).toEqual([]);
    } finally {
      await viewerContext.close();
      await operatorContext.close();
      await d.close();
      await queue.close();
    }
  }, 120_000);
});
