import { defineKinds, Queue, type AuditEntry } from '@jobs/core';
import { sendHeartbeat } from '@jobs/core/internal';
import { redisTest as test } from '@jobs/testing';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { jobQueueSource, type DashboardDataSource } from '../src/index.ts';
import { startTestDashboard } from './dashboard-client.ts';
import { SCRIPT } from './dashboard-hostile.ts';
import { signIn, suiteBrowser, watchPage } from './dashboard-page.ts';

const kinds = defineKinds({ email: { schema: { type: 'object' } } });
const IMG = '<img src=x onerror="window.__pwned=1">';
/** A queue name no queue of ours can have: a source of one's own may give any. */
const QUEUE = `q${IMG}`;

/** `source` with its one queue shown under `shown`. */
function renamed(source: DashboardDataSource, real: string, shown: string): DashboardDataSource {
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(source)) {
    if (typeof member === 'function') out[key] = (name: unknown, ...rest: unknown[]) => (member as (...args: unknown[]) => unknown).call(source, name === shown ? real : name, ...rest);
  }
  out.queueNames = () => [shown];
  return out as unknown as DashboardDataSource;
}

/** Nothing the data held became markup or ran. */
async function expectInert(page: Page, where: string): Promise<void> {
  expect(await page.locator('body script, body img, body iframe, body b').count(), where).toBe(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned), where).toBeUndefined();
}

describe('the workspace in a real browser: hostile values', () => {
  const browser = suiteBrowser();

  test('markup in every field a page shows (payload, error, stack, log line, kind, queue, schedule, worker host, batch id and callback, audit label and target, history kind) is drawn as text', async ({ redis, queueName }) => {
    // Through the public API: a worker id, a payload, an error (message, code, stack, cause) and log lines of markup.
    const queue = new Queue({ redis, queue: queueName, kinds, eventLog: true, metricsHistory: true, workerId: SCRIPT });
    const id = await queue.enqueue('email', { to: IMG }, { maxAttempts: 1 });
    const [job] = await queue.claim();
    if (job?.id !== id) throw new Error('expected to claim the job just enqueued');
    await queue.appendLogs(job, [{ atMs: job.claimedAtMs, line: SCRIPT }, { atMs: job.claimedAtMs + 1, line: IMG }]);
    const error = Object.assign(new Error(`${SCRIPT} ${IMG}`, { cause: Object.assign(new Error(SCRIPT), { code: IMG }) }), { code: '<b>c</b>' });
    error.stack = IMG;
    expect(await queue.fail(job, error)).toBe('failed');
    // A hostile writer with Redis access: kind names have a pattern that keeps markup out of
    // every client of ours, so the kind is written into the job's hash by hand, and likewise
    // into the schedule's hash and the metrics history's set of kinds.
    await redis.hset(queue.keys.job(id), 'kind', SCRIPT, 'payload', JSON.stringify({ kind: SCRIPT, to: IMG }));
    await queue.schedules.upsert({ id: 'sched', kind: 'email', payload: {}, cron: '0 3 * * *' });
    await redis.hset(queue.keys.schedule('sched'), 'kind', SCRIPT, 'cron', IMG);
    const { nowMs } = await queue.stats();
    await redis.zadd(queue.keys.metricsKinds, nowMs, SCRIPT, nowMs, IMG);
    await sendHeartbeat(queue.partitions[0]!.ctx, { id: 'w-xss', host: IMG, pid: 1, version: SCRIPT, kinds: [SCRIPT], concurrency: 1, running: [id], ttlMs: 600_000 });
    // Audit roles and actions have patterns too: one entry of markup written by hand.
    await redis.xadd(queue.keys.audit, '*', 'role', SCRIPT, 'label', IMG, 'action', SCRIPT, 'target', JSON.stringify({ id: IMG, kind: SCRIPT, filter: { text: SCRIPT } }), 'count', '1');
    const token = { token: 'hostile-label-token-0123', role: 'operator', label: SCRIPT } as const;
    // A batch whose fired callback's job id was rewritten by hand as markup.
    await queue.batch({ id: 'b-xss', onSuccess: { kind: 'email', payload: {} } }).seal();
    await redis.hset(queue.keys.batch('b-xss'), 'fired:success', SCRIPT);
    const source = renamed(jobQueueSource([queue]), queueName, QUEUE);
    // Batch ids have a pattern too: a source of one's own may give any, here a copy of the batch named in markup.
    const listed = source.batches!.bind(source);
    source.batches = async (name, page) => {
      const batches = await listed(name, page);
      return [...batches, ...batches.map((batch) => ({ ...batch, id: IMG }))];
    };
    const d = await startTestDashboard(undefined, { source, credentials: { tokens: [token] } });
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 1000 } });
    const watch = watchPage(page);
    const at = (path: string): string => `${d.url}queues/${encodeURIComponent(QUEUE)}${path}`;
    try {
      await signIn(page, d.url, token.token);
      await expect.poll(() => page.locator('#overview h2 a').textContent()).toBe(QUEUE);
      expect(await page.locator(`[data-side-queue]`).textContent()).toContain(QUEUE);
      expect(await page.locator('#session-label').textContent()).toBe(SCRIPT);
      await expectInert(page, 'overview');

      await page.goto(at('/failed'));
      await expect.poll(() => page.locator(`#jobs tr[data-id="${id}"]`).count()).toBe(1);
      expect(await page.locator('#queue-title').textContent()).toBe(QUEUE);
      const row = await page.locator(`#jobs tr[data-id="${id}"]`).textContent();
      for (const value of [SCRIPT, IMG, '<b>c</b>']) expect(row).toContain(value);
      await expectInert(page, 'list');

      await page.click(`#jobs tr[data-id="${id}"] a`);
      await expect.poll(() => page.locator('#job-logs li').count()).toBe(2);
      expect(await page.locator('#job-kind').textContent()).toBe(SCRIPT);
      expect(await page.locator('#job-payload').textContent()).toContain(JSON.stringify(IMG));
      expect(await page.locator('#job-error-shape [data-error-depth="0"] [data-error-code]').textContent()).toBe('<b>c</b>');
      expect(await page.locator('#job-error-shape [data-error-depth="0"] .error-message').textContent()).toBe(`${SCRIPT} ${IMG}`);
      expect(await page.locator('#job-error-shape [data-error-depth="0"] .stack').textContent()).toBe(IMG);
      expect(await page.locator('#job-error-shape [data-error-depth="1"] [data-error-code]').textContent()).toBe(IMG);
      expect(await page.locator('#job-error-shape [data-error-depth="1"] .error-message').textContent()).toBe(SCRIPT);
      const attempt = await page.locator('#job-attempt-list tbody').textContent();
      for (const value of [SCRIPT, IMG]) expect(attempt).toContain(value);
      expect(await page.locator('#job-logs .log-line').allTextContents()).toEqual([SCRIPT, IMG]);
      await expectInert(page, 'job');

      await page.goto(at('/schedules'));
      await expect.poll(() => page.locator('#schedules tr[data-schedule="sched"]').textContent()).toContain(SCRIPT);
      expect(await page.locator('#schedules tr[data-schedule="sched"]').textContent()).toContain(IMG);
      await expectInert(page, 'schedules');

      await page.goto(at('/workers'));
      await expect.poll(() => page.locator('#workers tr[data-worker="w-xss"]').textContent()).toContain(IMG);
      await page.click('#workers tr[data-worker="w-xss"] a');
      await expect.poll(() => page.locator('#worker-host').textContent()).toBe(IMG);
      expect(await page.locator('#worker-kinds').textContent()).toBe(SCRIPT);
      await expectInert(page, 'worker');

      await page.goto(at('/batches'));
      await expect.poll(() => page.locator('#batches tr[data-batch]').count()).toBe(2);
      expect(await page.locator('#batches td[data-col="id"]').allTextContents()).toEqual(['b-xss', IMG]);
      const fired = page.locator('#batches [data-callback="success"] a');
      expect(await fired.allTextContents()).toEqual(['success: fired', 'success: fired']);
      expect(await fired.first().getAttribute('href')).toBe(`/queues/${encodeURIComponent(QUEUE)}/jobs/${encodeURIComponent(SCRIPT)}`);
      await expectInert(page, 'batches');

      await page.goto(at('/history'));
      await expect.poll(() => page.locator('#history-kind option').allTextContents()).toEqual(['every kind', IMG, SCRIPT, 'email']);
      await expectInert(page, 'history');

      // Two actions in the page, recorded with the token's label: a kind pause the server
      // refuses (the kind is no kind name), and a retry by a filter of the hostile kind.
      await page.fill('#pause-kind', IMG);
      await page.click('#kind-pause-form button[type=submit]');
      await expect.poll(() => page.locator('#message').textContent()).toContain('kind must be a kind name');
      await page.goto(`${at('/failed')}?kind=${encodeURIComponent(SCRIPT)}`);
      await expect.poll(() => page.locator(`#jobs tr[data-id="${id}"]`).count()).toBe(1);
      await page.click('#bulk [data-bulk-filter="retry"]');
      await page.click('#confirm-ok');
      await expect.poll(() => page.locator('#message').textContent()).toBe('retried 1 of 1 job');
      expect((await queue.getJob(id))?.status).toBe('pending');

      await page.goto(at('/audit'));
      await expect.poll(() => page.locator('#audit tr[data-audit]').count()).toBe(3);
      const [retried, refused, written] = (await queue.auditTrail()).entries as [AuditEntry, AuditEntry, AuditEntry];
      expect([retried.action, refused.action, refused.error, written.action]).toEqual(['bulk:retry', 'pause', 'bad_body', SCRIPT]);
      const rowOf = (entry: AuditEntry) => page.locator(`#audit tr[data-audit="${entry.id}"]`).textContent();
      for (const value of [SCRIPT, JSON.stringify({ state: 'failed', kind: SCRIPT, offset: 0 })]) expect(await rowOf(retried)).toContain(value);
      for (const value of [SCRIPT, `kind ${IMG}`, 'refused: bad_body']) expect(await rowOf(refused)).toContain(value);
      for (const value of [SCRIPT, IMG, JSON.stringify({ text: SCRIPT })]) expect(await rowOf(written)).toContain(value);
      await expectInert(page, 'audit');
      expect(watch.problems).toEqual([]);
    } finally {
      await page.close();
      await d.close();
      await queue.close();
    }
  });
});
