import { defineKinds, Queue, queueKeys } from '@jobs/core';
import { sendHeartbeat } from '@jobs/core/internal';
import { redisTest as test } from '@jobs/testing';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { jobQueueSource, type DashboardDataSource } from '../src/index.ts';
import { contractRoutes, historyOf } from './dashboard-contract.ts';
import { startTestDashboard } from './dashboard-client.ts';
import { SCRIPT } from './dashboard-hostile.ts';
import { suiteBrowser, watchPage } from './dashboard-page.ts';

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

  test('markup in every field a page shows (payload, error, stack, log line, kind, queue, schedule, worker host, audit, history) is drawn as text', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, eventLog: true });
    const k = queueKeys(queueName);
    // A foreign client's failed job: markup for its kind, payload and error.
    await redis.hset(k.job('h-xss'), { id: 'h-xss', payload: JSON.stringify({ kind: SCRIPT, to: IMG }), status: 'failed', attempts: '1', max_attempts: '1', enqueued_at_ms: '1', failed_at_ms: '2', last_error: `${SCRIPT}: ${IMG}`, claim_token: '' });
    await redis.lpush(k.failed, 'h-xss');
    await queue.schedules.upsert({ id: 'sched', kind: 'email', payload: {}, cron: '0 3 * * *' });
    await redis.hset(k.schedule('sched'), 'kind', SCRIPT, 'cron', IMG);
    await sendHeartbeat(queue.partitions[0]!.ctx, { id: 'w-xss', host: IMG, pid: 1, version: SCRIPT, kinds: [SCRIPT], concurrency: 1, running: ['h-xss'], ttlMs: 600_000 });
    const nowMs = (await queue.stats()).nowMs;
    const d = await startTestDashboard(undefined, { source: renamed(jobQueueSource([queue]), queueName, QUEUE) });
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 1000 } });
    const watch = watchPage(page);
    await contractRoutes(page, {
      capabilities: { attempts: true, logs: true, history: true, audit: true, remove: true },
      label: SCRIPT,
      detail: (id) =>
        id === 'h-xss'
          ? {
              error: { code: '<b>c</b>', message: SCRIPT, stack: IMG, cause: { code: IMG, message: SCRIPT } },
              attempts: { entries: [{ attempt: 1, workerId: IMG, claimedAtMs: nowMs, endedAtMs: nowMs, durationMs: 1, outcome: SCRIPT, error: { message: IMG } }], trimmed: 0 },
              logs: { lines: [{ atMs: nowMs, attempt: 1, line: SCRIPT }, { atMs: nowMs, line: IMG }], trimmed: 0 },
            }
          : undefined,
      history: () => historyOf(QUEUE, '1h', null, [SCRIPT, IMG], 10, nowMs, 3),
      audit: () => ({ queue: QUEUE, entries: [{ id: 'a-1', atMs: nowMs, who: { role: SCRIPT, label: IMG }, action: SCRIPT, target: { id: 'h-xss', kind: IMG, filter: { text: SCRIPT } }, count: 1 }], next: null }),
    });
    const at = (path: string): string => `${d.url}queues/${encodeURIComponent(QUEUE)}${path}`;
    try {
      await page.goto(d.url);
      await expect.poll(() => page.locator('#overview h2 a').textContent()).toBe(QUEUE);
      expect(await page.locator(`[data-side-queue]`).textContent()).toContain(QUEUE);
      await expectInert(page, 'overview');

      await page.goto(at('/failed'));
      await expect.poll(() => page.locator('#jobs tr[data-id="h-xss"]').count()).toBe(1);
      expect(await page.locator('#queue-title').textContent()).toBe(QUEUE);
      const row = await page.locator('#jobs tr[data-id="h-xss"]').textContent();
      expect(row).toContain(SCRIPT);
      expect(row).toContain(IMG);
      await expectInert(page, 'list');

      await page.click('#jobs tr[data-id="h-xss"] a');
      await expect.poll(() => page.locator('#job-logs li').count()).toBe(2);
      expect(await page.locator('#job-kind').textContent()).toBe(SCRIPT);
      expect(await page.locator('#job-payload').textContent()).toContain(JSON.stringify(IMG));
      expect(await page.locator('#job-error-shape .error-message').first().textContent()).toBe(SCRIPT);
      expect(await page.locator('#job-error-shape .stack').textContent()).toBe(IMG);
      expect(await page.locator('#job-error-shape [data-error-depth="1"]').textContent()).toContain(IMG);
      expect(await page.locator('#job-attempt-list tbody').textContent()).toContain(IMG);
      expect(await page.locator('#job-logs .log-line').allTextContents()).toEqual([SCRIPT, IMG]);
      expect(await page.locator('#session-label').textContent()).toBe(SCRIPT);
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

      await page.goto(at('/history'));
      await expect.poll(() => page.locator('#history-kind option').allTextContents()).toEqual(['every kind', SCRIPT, IMG]);
      await expectInert(page, 'history');

      await page.goto(at('/audit'));
      await expect.poll(() => page.locator('#audit tr[data-audit="a-1"]').count()).toBe(1);
      const audit = await page.locator('#audit tr[data-audit="a-1"]').textContent();
      for (const value of [SCRIPT, IMG]) expect(audit).toContain(value);
      await expectInert(page, 'audit');
      expect(watch.problems).toEqual([]);
    } finally {
      await page.close();
      await d.close();
      await queue.close();
    }
  });
});
