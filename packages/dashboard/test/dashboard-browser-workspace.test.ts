import { defineKinds, Queue, type RedisClient } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { startTestDashboard } from './dashboard-client.ts';
import { suiteBrowser, watchPage, watchPosts } from './dashboard-page.ts';

const kinds = defineKinds({
  email: { schema: { type: 'object', properties: { to: { type: 'string' } } } },
  report: { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
});

function openQueue(redis: RedisClient, queueName: string) {
  return new Queue({ redis, queue: queueName, kinds, eventLog: true });
}
type TestQueue = ReturnType<typeof openQueue>;

async function failWith(queue: TestQueue, to: string, error: Error): Promise<string> {
  const id = await queue.enqueue('email', { to }, { maxAttempts: 1 });
  const [job] = await queue.claim();
  if (job?.id !== id) throw new Error('expected to claim the job just enqueued');
  await queue.fail(job, error);
  return id;
}

const rowIds = (page: Page): Promise<(string | null)[]> => page.locator('#jobs tbody tr[data-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id')).sort());
const smtpError = (): Error => Object.assign(new Error('mailbox full'), { name: 'SmtpError' });
/** A Unix ms time as a datetime-local input takes it (UTC, to the minute). */
const minute = (ms: number): string => new Date(ms).toISOString().slice(0, 16);

describe('the workspace in a real browser: lists, filters and actions', () => {
  const browser = suiteBrowser();

  test('filters live in the URL (error code, payload text, time range): a reload keeps them, back clears them, and the page states the scan', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const a = await failWith(queue, 'ann@example.com', smtpError());
    const b = await failWith(queue, 'bob@example.com', new Error('connection reset'));
    const c = await failWith(queue, 'cid@example.org', smtpError());
    const nowMs = (await queue.stats()).nowMs;
    const d = await startTestDashboard([queue]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 900 } });
    const watch = watchPage(page);
    try {
      await page.goto(`${d.url}queues/${queueName}/failed`);
      await expect.poll(() => rowIds(page)).toEqual([a, b, c].sort());
      await page.fill('#filter-code', 'SmtpError');
      await page.click('#filter-form button[type=submit]');
      await expect.poll(() => rowIds(page)).toEqual([a, c].sort());
      expect(new URL(page.url()).search).toBe('?code=SmtpError');
      expect(await page.locator('#jobs [data-error-code="SmtpError"]').count()).toBe(2);
      expect(await page.locator('#scan-note').textContent()).toContain('A search reads at most 1,000 entries per request (1 list read of up to 1,000 jobs with their records), never the whole list');
      await page.reload();
      await expect.poll(() => rowIds(page)).toEqual([a, c].sort());
      expect(await page.inputValue('#filter-code')).toBe('SmtpError');
      await page.goBack();
      await expect.poll(() => rowIds(page)).toEqual([a, b, c].sort());
      expect(await page.inputValue('#filter-code')).toBe('');

      await page.fill('#filter-text', 'EXAMPLE.ORG');
      await page.click('#filter-form button[type=submit]');
      await expect.poll(() => rowIds(page)).toEqual([c]);
      await page.click('#filter-clear');
      // A time range after every failure matches none; one around them matches all.
      await page.fill('#filter-from', minute(nowMs + 120_000));
      await page.click('#filter-form button[type=submit]');
      await expect.poll(() => page.locator('#jobs tbody').textContent()).toBe('No match in the entries scanned.');
      await page.fill('#filter-from', minute(nowMs - 120_000));
      await page.fill('#filter-to', minute(nowMs + 120_000));
      await page.click('#filter-form button[type=submit]');
      await expect.poll(() => rowIds(page)).toEqual([a, b, c].sort());
      expect(new URL(page.url()).searchParams.get('from')).toBe(String(Date.parse(`${minute(nowMs - 120_000)}Z`)));
      expect(watch.problems).toEqual([]);
    } finally {
      await page.close();
      await d.close();
    }
  });

  test('retry by selection, by a filter of error code, and cancel from a row: the confirmation names the count, and the jobs move', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const failed = [await failWith(queue, 'a@example.com', smtpError()), await failWith(queue, 'b@example.com', smtpError()), await failWith(queue, 'c@example.com', smtpError())];
    const pending = await queue.enqueue('report', { n: 1 });
    const d = await startTestDashboard([queue]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 900 } });
    const watch = watchPage(page);
    const sent = watchPosts(page);
    try {
      await page.goto(`${d.url}queues/${queueName}/failed`);
      await expect.poll(() => rowIds(page)).toEqual([...failed].sort());
      await page.check(`[data-select="${failed[0]}"]`);
      await page.check(`[data-select="${failed[2]}"]`);
      expect(await page.locator('#bulk .muted').first().textContent()).toBe('2 selected:');
      await page.click('#bulk [data-bulk="retry"]');
      expect(await page.locator('#confirm-text').textContent()).toBe(`Retry the 2 jobs selected in ${queueName}?`);
      expect(await page.locator('#confirm-ok').textContent()).toBe('Retry 2');
      await page.click('#confirm-ok');
      await expect.poll(() => page.locator('#message').textContent()).toBe('retried 2 of 2 jobs');
      expect((await queue.getJob(failed[0]!))?.status).toBe('pending');
      expect((await queue.getJob(failed[1]!))?.status).toBe('failed');
      expect((await queue.getJob(failed[2]!))?.status).toBe('pending');
      await expect.poll(() => rowIds(page)).toEqual([failed[1]]);
      // A cancelled dialog does nothing.
      await page.check(`[data-select="${failed[1]}"]`);
      await page.click('#bulk [data-bulk="retry"]');
      await page.click('#confirm button[value=cancel]');
      expect((await queue.getJob(failed[1]!))?.status).toBe('failed');
      // By filter after a search by error code: the filter goes to the server as the page shows it.
      await page.fill('#filter-code', 'SmtpError');
      await page.click('#filter-form button[type=submit]');
      await expect.poll(() => rowIds(page)).toEqual([failed[1]]);
      await page.click('#bulk [data-bulk-filter="retry"]');
      expect(await page.locator('#confirm-text').textContent()).toBe(`Retry the 1 job matching this filter in the 1 entries scanned in ${queueName}?`);
      await page.click('#confirm-ok');
      await expect.poll(() => page.locator('#message').textContent()).toBe('retried 1 of 1 job');
      expect(sent.at(-1)?.body).toEqual({ action: 'retry', expected: 1, filter: { state: 'failed', code: 'SmtpError', offset: 0 } });
      expect((await queue.getJob(failed[1]!))?.status).toBe('pending');

      await page.click('#state-tabs [data-state="pending"]');
      await page.click(`#jobs tr[data-id="${pending}"] [data-row-action="cancel"]`);
      await expect.poll(() => page.locator('#message').textContent()).toBe(`cancelled job ${pending}`);
      expect((await queue.getJob(pending))?.status).toBe('cancelled');
      expect(watch.problems).toEqual([]);
    } finally {
      await page.close();
      await d.close();
    }
  });

  test('promote, priority, delete and bulk (by selection and by filter) send the requests with the count the operator confirmed, and the jobs change in Redis', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const mail = [await queue.enqueue('email', { to: 'a@example.com' }), await queue.enqueue('email', { to: 'b@example.com' }), await queue.enqueue('email', { to: 'c@example.com' })];
    const report = await queue.enqueue('report', { n: 9 });
    const delayed = [];
    for (let i = 0; i < 4; i++) delayed.push(await queue.enqueue('report', { n: i }, { delayMs: 3_600_000 }));
    const d = await startTestDashboard([queue]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 900 } });
    const watch = watchPage(page);
    const sent = watchPosts(page);
    const statusOf = async (id: string): Promise<string | undefined> => (await queue.getJob(id))?.status;
    try {
      await page.goto(`${d.url}queues/${queueName}/pending`);
      await expect.poll(() => rowIds(page)).toEqual([...mail, report].sort());
      await page.click(`#jobs tr[data-id="${report}"] [data-row-action="priority"]`);
      await page.fill('#confirm-number', '7');
      await page.click('#confirm-ok');
      await expect.poll(() => page.locator('#message').textContent()).toBe(`set the priority of job ${report} to 7`);
      expect(sent.at(-1)).toEqual({ path: `/api/queues/${queueName}/jobs/${report}/priority`, body: { priority: 7 } });
      expect((await queue.getJob(report))?.priority).toBe(7);
      // A job with a priority waits in its priority's list: it leaves pending for prioritized.
      await expect.poll(() => rowIds(page)).toEqual([...mail].sort());
      await page.click('#state-tabs [data-state="prioritized"]');
      await expect.poll(() => rowIds(page)).toEqual([report]);

      // From a job's page: its priority starts at the job's own, delete asks first.
      await page.click(`#jobs tr[data-id="${report}"] a`);
      await expect.poll(() => page.locator('#job-priority-value').textContent()).toBe('7');
      await page.click('#job-priority');
      expect(await page.inputValue('#confirm-number')).toBe('7');
      await page.click('#confirm button[value=cancel]');
      await page.goBack();
      await page.click('#state-tabs [data-state="pending"]');
      await expect.poll(() => rowIds(page)).toEqual([...mail].sort());
      await page.click(`#jobs tr[data-id="${mail[0]}"] a`);
      await expect.poll(() => page.locator('#job-id').textContent()).toBe(mail[0]);
      await page.click('#job-delete');
      expect(await page.locator('#confirm-text').textContent()).toBe(`Delete job ${mail[0]} of ${queueName}: its record and its place in its list. This cannot be undone.`);
      expect(await page.locator('#confirm-ok').textContent()).toBe('Delete 1 job');
      await page.click('#confirm-ok');
      await expect.poll(() => page.locator('#message').textContent()).toBe(`deleted job ${mail[0]}`);
      expect(sent.at(-1)).toEqual({ path: `/api/queues/${queueName}/jobs/${mail[0]}/delete`, body: {} });
      expect(await queue.getJob(mail[0]!)).toBeNull();
      await page.goBack();

      await expect.poll(() => rowIds(page)).toEqual([mail[1], mail[2]].sort());
      await page.check(`[data-select="${mail[1]}"]`);
      await page.click('#bulk [data-bulk="delete"]');
      expect(await page.locator('#confirm-text').textContent()).toBe(`Delete the 1 job selected in ${queueName}? This cannot be undone.`);
      await page.click('#confirm-ok');
      await expect.poll(() => page.locator('#message').textContent()).toBe('deleted 1 of 1 job');
      expect(sent.at(-1)?.body).toEqual({ action: 'delete', expected: 1, ids: [mail[1]] });
      expect(await queue.getJob(mail[1]!)).toBeNull();

      // By filter: the matches among the entries scanned, and the filter with where its scan began.
      await page.fill('#filter-kind', 'email');
      await page.click('#filter-form button[type=submit]');
      await expect.poll(() => rowIds(page)).toEqual([mail[2]]);
      await page.click('#bulk [data-bulk-filter="cancel"]');
      expect(await page.locator('#confirm-text').textContent()).toBe(`Cancel the 1 job matching this filter in the 1 entries scanned in ${queueName}?`);
      await page.click('#confirm-ok');
      await expect.poll(() => page.locator('#message').textContent()).toBe('cancelled 1 of 1 job');
      expect(sent.at(-1)?.body).toEqual({ action: 'cancel', expected: 1, filter: { state: 'pending', kind: 'email', offset: 0 } });
      expect(await statusOf(mail[2]!)).toBe('cancelled');
      expect(await statusOf(report)).toBe('pending');

      await page.click('#state-tabs [data-state="delayed"]');
      await expect.poll(() => rowIds(page)).toEqual([...delayed].sort());
      await page.click(`#jobs tr[data-id="${delayed[0]}"] [data-row-action="promote"]`);
      await expect.poll(() => page.locator('#message').textContent()).toBe(`promoted job ${delayed[0]}: it runs now`);
      expect(sent.at(-1)).toEqual({ path: `/api/queues/${queueName}/jobs/${delayed[0]}/promote`, body: {} });
      expect(await statusOf(delayed[0]!)).toBe('pending');

      // By selection, with one of the two promoted by someone else while the dialog was open:
      // that one is skipped with the status that kept it.
      await expect.poll(() => rowIds(page)).toEqual(delayed.slice(1).sort());
      await page.check(`[data-select="${delayed[1]}"]`);
      await page.check(`[data-select="${delayed[2]}"]`);
      await page.click('#bulk [data-bulk="promote"]');
      expect(await page.locator('#confirm-text').textContent()).toBe(`Promote (run now) the 2 jobs selected in ${queueName}?`);
      expect(await queue.promote(delayed[1]!)).toEqual({ promoted: true });
      await page.click('#confirm-ok');
      await expect.poll(() => page.locator('#message').textContent()).toBe(`promoted 1 of 2 jobs; 1 skipped (${delayed[1]}: pending)`);
      expect(sent.at(-1)?.body).toEqual({ action: 'promote', expected: 2, ids: [delayed[1], delayed[2]] });
      expect(await statusOf(delayed[2]!)).toBe('pending');

      await expect.poll(() => rowIds(page)).toEqual([delayed[3]]);
      await page.click('#bulk [data-bulk-filter="promote"]');
      expect(await page.locator('#confirm-text').textContent()).toBe(`Promote (run now) the 1 job delayed in ${queueName}?`);
      await page.click('#confirm-ok');
      await expect.poll(() => page.locator('#message').textContent()).toBe('promoted 1 of 1 job');
      expect(sent.at(-1)).toEqual({ path: `/api/queues/${queueName}/bulk`, body: { action: 'promote', expected: 1, filter: { state: 'delayed' } } });
      expect(await statusOf(delayed[3]!)).toBe('pending');
      expect((await queue.stats()).delayedDepth).toBe(0);
      expect(watch.problems).toEqual([]);
    } finally {
      await page.close();
      await d.close();
    }
  });
});
