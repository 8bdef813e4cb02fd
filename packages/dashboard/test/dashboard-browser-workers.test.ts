import { defineKinds, Queue } from '@jobs/core';
import { redisTest as test, within } from '@jobs/testing';
import { createWorker } from '@jobs/worker';
import { describe, expect } from 'vitest';
import { startTestDashboard } from './dashboard-client.ts';
import { RESULTS, suiteBrowser } from './dashboard-page.ts';

const kinds = defineKinds({ email: { schema: { type: 'object' } } });

describe('the dashboard in a real browser: live workers', () => {
  const browser = suiteBrowser();

  test('a queue card says "no live worker" while none heartbeats, "running" while one does, and "no live worker" again once it closed', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('email', {});
    const d = await startTestDashboard([queue]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 900 } });
    const card = page.locator(`article[data-queue="${queueName}"]`);
    let live: { close(): Promise<void> } | undefined;
    try {
      await page.goto(`${d.url}?poll=300`);
      await expect.poll(() => card.locator('[data-workers="none"]').textContent()).toBe('no live worker');
      expect(await card.locator('[data-flow]').count()).toBe(0);
      await page.screenshot({ path: `${RESULTS}dashboard-no-live-worker.png` });
      // The queue's own view says the same.
      await card.locator('h2 a').click();
      await expect.poll(() => page.locator('#queue-flow [data-workers="none"]').count()).toBe(1);
      await page.click('#queue-nav [data-page="workers"]');
      await expect.poll(() => page.locator('#workers h3').textContent()).toBe('Live workers: 0');

      live = createWorker({ redis, queue: queueName, kinds, heartbeatIntervalMs: 200, handlers: { email: () => 'sent' } });
      await expect.poll(() => page.locator('#queue-flow [data-flow]').textContent()).toBe('running');
      await expect.poll(() => page.locator('#workers tr[data-worker]').count()).toBe(1);
      await expect.poll(() => page.locator('#workers tr[data-worker] [data-claiming]').textContent()).toBe('yes');
      // Told to stop claiming, its row says so at its next heartbeat (sent at once), and claiming again once resumed.
      await queue.quietWorkers();
      await expect.poll(() => page.locator('#workers tr[data-worker] [data-claiming]').textContent()).toBe('quiet');
      await queue.scaleWorkers({ concurrency: 3 });
      await expect.poll(() => page.locator('#workers tr[data-worker] td:nth-child(4)').textContent()).toBe('0 of 3');
      await queue.resumeWorkers();
      await expect.poll(() => page.locator('#workers tr[data-worker] [data-claiming]').textContent()).toBe('yes');
      // The operator's buttons: the row's Quiet tells that worker alone, Resume all tells every one; both go in the audit trail.
      const workerId = (await queue.workers())[0]!.id;
      await page.click(`#workers tr[data-worker] button[data-order="quiet-workers"]`);
      await expect.poll(() => page.locator('#message').textContent()).toBe(`told 1 worker(s) of ${queueName} to stop claiming (running jobs finish)`);
      await expect.poll(() => page.locator('#workers tr[data-worker] [data-claiming]').textContent()).toBe('quiet');
      expect((await queue.workers())[0]?.quiet).toBe(true);
      await page.click('#worker-orders button[data-order="resume-workers"]');
      await expect.poll(() => page.locator('#workers tr[data-worker] [data-claiming]').textContent()).toBe('yes');
      const trail = await queue.auditTrail();
      expect(trail.entries.map((entry) => [entry.action, entry.target?.id ?? null, entry.count])).toEqual([['resume-workers', null, 1], ['quiet-workers', workerId, 1]]);
      // The worker's row links to its page: host, kinds, and the URL names it.
      await page.locator('#workers tr[data-worker] a').click();
      await expect.poll(() => page.locator('#worker-kinds').textContent()).toBe('email');
      expect(await page.locator('#worker-host').textContent()).not.toBe('');
      expect(decodeURIComponent(new URL(page.url()).pathname)).toMatch(new RegExp(`^/queues/${queueName}/workers/.+`));
      await page.screenshot({ path: `${RESULTS}dashboard-worker.png` });
      await page.goto(`${d.url}?poll=300`);
      await expect.poll(() => card.locator('[data-flow]').textContent()).toBe('running');
      expect(await card.locator('[data-workers]').count()).toBe(0);
      await within(live.close(), 15_000, () => 'worker close');
      live = undefined;
      await expect.poll(() => card.locator('[data-workers="none"]').textContent()).toBe('no live worker');
    } finally {
      await live?.close();
      await page.close();
      await d.close();
      await queue.close();
    }
  }, 120_000);
});
