import { Queue } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { batchKinds, threeBatches, type BatchQueue } from './batch-fixtures.ts';
import { startTestDashboard } from './dashboard-client.ts';
import { RESULTS, suiteBrowser, watchPage } from './dashboard-page.ts';

/** Claims and completes every job waiting in `queue`, the batches' and their callbacks'. */
async function completeAll(queue: BatchQueue): Promise<void> {
  for (;;) {
    const jobs = await queue.claim({ max: 100 });
    if (jobs.length === 0) return;
    for (const job of jobs) await queue.complete(job, 'done');
  }
}

describe('the dashboard in a real browser: batches', () => {
  const browser = suiteBrowser();

  test("a queue's batches page lists its batches newest first with their counts and callbacks, links a fired callback to its job, and follows a batch as it finishes", async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds: batchKinds }) as BatchQueue;
    const none = new Queue({ redis, queue: `${queueName}-none`, kinds: batchKinds }) as BatchQueue;
    const { importA } = await threeBatches(redis, queue);
    await none.enqueue('email', { to: 'alone@example.com' });
    const d = await startTestDashboard([queue, none]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 900 } });
    const watch = watchPage(page);
    const row = (id: string) => page.locator(`#batches tr[data-batch="${id}"]`);
    const cell = (id: string, column: string) => row(id).locator(`[data-col="${column}"]`).textContent();
    try {
      await page.goto(`${d.url}queues/${queueName}?poll=300`);
      await page.click('#queue-nav [data-page="batches"]');
      await expect.poll(() => page.locator('#batches tr[data-batch]').count()).toBe(3);
      expect(new URL(page.url()).pathname).toBe(`/queues/${queueName}/batches`);
      expect(await page.locator('#batches tr[data-batch]').evaluateAll((rows) => rows.map((tr) => tr.getAttribute('data-batch')))).toEqual(['sealed-c', 'empty-b', 'import-a']);

      // The open batch: 3 jobs, one completed, one failed for good (its onDeath fired), one pending.
      expect(await cell('import-a', 'state')).toBe('open');
      expect([await cell('import-a', 'total'), await cell('import-a', 'succeeded'), await cell('import-a', 'failed'), await cell('import-a', 'cancelled')]).toEqual(['3', '1', '1', '0']);
      expect((await cell('import-a', 'pending'))?.trim()).toBe('1');
      const bar = row('import-a').locator('progress.ended');
      expect([await bar.getAttribute('value'), await bar.getAttribute('max')]).toEqual(['2', '3']);
      expect(await row('import-a').locator('[data-callback="success"][data-fired="no"]').textContent()).toBe('success: not fired');
      expect(await cell('import-a', 'finished')).toBe('–');
      // The empty batch finished when sealed: its onComplete fired.
      expect(await cell('empty-b', 'state')).toBe('finished');
      expect(await cell('empty-b', 'finished')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC$/);
      expect(await row('empty-b').locator('[data-callback="complete"][data-fired="yes"]').textContent()).toBe('complete: fired');
      expect(await cell('sealed-c', 'state')).toBe('sealed');
      expect(await cell('sealed-c', 'callbacks')).toBe('–');
      expect(await row('sealed-c').locator('progress').count()).toBe(1);
      await page.screenshot({ path: `${RESULTS}dashboard-batches.png`, fullPage: true });

      // The fired callback links to its job's page.
      await row('import-a').locator('[data-callback="death"] a').click();
      await expect.poll(() => page.locator('#job-id').textContent()).toBe('batch:import-a:death');
      expect(decodeURIComponent(new URL(page.url()).pathname)).toBe(`/queues/${queueName}/jobs/batch:import-a:death`);
      expect(await page.locator('#job-kind').textContent()).toBe('report');

      // Every job ends and import-a is sealed: the page, polling, shows both batches finished.
      await page.goBack();
      await expect.poll(() => page.locator('#batches tr[data-batch]').count()).toBe(3);
      await completeAll(queue);
      await importA.seal();
      await expect.poll(() => cell('import-a', 'state')).toBe('finished');
      expect([await cell('import-a', 'succeeded'), await cell('import-a', 'failed'), (await cell('import-a', 'pending'))?.trim()]).toEqual(['2', '1', '0']);
      // One job failed: onSuccess never fires.
      expect(await row('import-a').locator('[data-callback="success"]').getAttribute('data-fired')).toBe('no');
      await expect.poll(() => cell('sealed-c', 'state')).toBe('finished');

      // A queue without batches says so.
      await page.goto(`${d.url}queues/${queueName}-none/batches`);
      await expect.poll(() => page.locator('#batches-none').textContent()).toContain('No batches');
      expect(await page.locator('#batches table').count()).toBe(0);
      expect(watch.problems).toEqual([]);
    } finally {
      await page.close();
      await d.close();
      await queue.close();
      await none.close();
    }
  }, 120_000);
});
