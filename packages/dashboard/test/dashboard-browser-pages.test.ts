import { defineKinds, Queue, type RedisClient } from '@jobs/core';
import { sendHeartbeat } from '@jobs/core/internal';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { contractRoutes, historyOf, type ContractAnswers } from './dashboard-contract.ts';
import { startTestDashboard, TOKENS } from './dashboard-client.ts';
import { overflowX, SCREENSHOTS, suiteBrowser, watchPage } from './dashboard-page.ts';

const kinds = defineKinds({
  email: { schema: { type: 'object', properties: { to: { type: 'string' } } } },
  report: { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
});
const ALL = { attempts: true, logs: true, history: true, audit: true, promote: true, changePriority: true, remove: true };
/** Every control that acts: none may show to a viewer. */
const CONTROLS = '[data-row-action], [data-bulk], [data-bulk-filter], [data-select], #select-all, #bulk, #job-retry, #job-cancel, #job-delete, #job-promote, #job-priority, #pause-toggle, #redrive-all, #purge, #kind-pause-form, [data-resume-kind]';

function openQueue(redis: RedisClient, queueName: string, workerId = 'w-pages') {
  return new Queue({ redis, queue: queueName, kinds, eventLog: true, workerId });
}
type TestQueue = ReturnType<typeof openQueue>;

/** A queue with a bit of everything: failed (with a code), pending, delayed, a flow, a schedule, a live worker. */
async function busyQueue(queue: TestQueue) {
  const [claimed] = await Promise.all([queue.enqueue('email', { to: 'fail@example.com' }, { maxAttempts: 1 })]);
  const [job] = await queue.claim();
  if (job?.id !== claimed) throw new Error('expected to claim the job just enqueued');
  await queue.fail(job, Object.assign(new Error('SMTP 552: mailbox full'), { name: 'SmtpError' }));
  const flow = await queue.enqueueFlow({ kind: 'report', payload: { n: 1 }, children: [{ kind: 'email', payload: { to: 'child@example.com' } }, { kind: 'report', payload: { n: 2 } }] });
  await queue.enqueue('report', { n: 3 }, { delayMs: 3_600_000 });
  for (let i = 0; i < 3; i++) await queue.enqueue('email', { to: `user${i}@example.com` });
  await queue.schedules.upsert({ id: 'nightly-report', kind: 'report', payload: { n: 7 }, cron: '0 3 * * *' });
  await sendHeartbeat(queue.partitions[0]!.ctx, { id: 'w-1', host: 'worker-host-1', pid: 4242, version: '1.0.0', kinds: ['email', 'report'], concurrency: 4, running: [], ttlMs: 600_000 });
  return { failed: claimed, flow };
}

/** The contract's answers for a queue: a failed job's attempts, error and logs, history, audit. */
function answersFor(queueName: string, failed: string, nowMs: number, text = (s: string) => s): ContractAnswers {
  return {
    capabilities: ALL,
    label: text('ops-team'),
    detail: (id) =>
      id === failed
        ? {
            error: { code: text('SmtpError'), message: text('SMTP 552: mailbox full'), stack: text('SmtpError: SMTP 552\n    at send (mailer.js:10:5)'), cause: { code: text('ECONNRESET'), message: text('socket hang up') } },
            attempts: {
              entries: [
                { attempt: 1, workerId: text('w-1'), claimedAtMs: nowMs - 60_000, endedAtMs: nowMs - 59_000, durationMs: 1_000, outcome: 'retried', error: { code: 'ETIMEDOUT', message: text('timed out') } },
                { attempt: 2, workerId: text('w-1'), claimedAtMs: nowMs - 30_000, endedAtMs: nowMs - 29_500, durationMs: 500, outcome: 'failed', error: { code: 'SmtpError', message: text('SMTP 552: mailbox full') } },
              ],
              trimmed: 0,
            },
            logs: { lines: [{ atMs: nowMs - 30_000, attempt: 2, line: text('connecting to smtp.example.com') }, { atMs: nowMs - 29_600, attempt: 2, line: text('552 mailbox full') }], trimmed: 3 },
          }
        : undefined,
    history: (query) => historyOf(queueName, query.get('range') ?? '1h', query.get('kind') || null, [text('email'), 'report'], query.get('range') === '24h' ? 288 : 60, nowMs, 12),
    audit: (query) => ({
      queue: queueName,
      entries: [
        { id: 'a-2', atMs: nowMs - 5_000, who: { role: 'operator', label: text('ops-team') }, action: text('retry'), target: { id: failed }, count: 1 },
        { id: 'a-1', atMs: nowMs - 60_000, who: { role: 'operator', label: text('ops-team') }, action: 'bulk', target: { filter: { state: 'failed', kind: text('email') } }, count: 12 },
      ],
      next: query.get('before') ? null : 'a-1',
    }),
  };
}

describe('the workspace in a real browser: every page', () => {
  const browser = suiteBrowser();

  test("a failed job's page shows its error with stack and cause, its attempts and logs; a flow's page its children, each linking back to its parent", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const { failed, flow } = await busyQueue(queue);
    const nowMs = (await queue.stats()).nowMs;
    const d = await startTestDashboard([queue]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 1100 } });
    const watch = watchPage(page);
    await contractRoutes(page, answersFor(queueName, failed, nowMs));
    try {
      await page.goto(`${d.url}queues/${queueName}/jobs/${failed}`);
      await expect.poll(() => page.locator('#job-status').textContent()).toBe('failed');
      expect(await page.locator('#job-error-shape [data-error-depth="0"] [data-error-code]').textContent()).toBe('SmtpError');
      expect(await page.locator('#job-error-shape .stack').textContent()).toContain('at send (mailer.js:10:5)');
      expect(await page.locator('#job-error-shape [data-error-depth="1"]').textContent()).toContain('ECONNRESET socket hang up');
      expect(await page.locator('#job-attempt-list tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-attempt')))).toEqual(['1', '2']);
      expect(await page.locator('#job-attempt-list tr[data-attempt="1"]').textContent()).toContain('retried');
      expect(await page.locator('#job-logs li').allTextContents()).toEqual([expect.stringContaining('connecting to smtp.example.com'), expect.stringContaining('552 mailbox full')]);
      expect(await page.locator('#job-logs-trimmed').textContent()).toBe('3 earlier line(s) not kept');
      await page.screenshot({ path: `${SCREENSHOTS}dashboard-job-attempts.png`, fullPage: true });

      // A running job's progress, as its handler reported it.
      const running = await queue.enqueue('email', { to: 'progress@example.com' });
      const claimed = (await queue.claim({ max: 10 })).find((job) => job.id === running);
      expect(claimed?.id).toBe(running);
      await queue.progress(claimed!, 40);
      await page.goto(`${d.url}queues/${queueName}/jobs/${running}`);
      await expect.poll(() => page.locator('#job-progress').textContent()).toBe(' 40%');
      expect(await page.locator('#job-progress progress').getAttribute('value')).toBe('40');

      await page.goto(`${d.url}queues/${queueName}/jobs/${flow.id}`);
      await expect.poll(() => page.locator('#job-children > li[data-child]').count()).toBe(2);
      expect(await page.locator('#job-status').textContent()).toBe('waiting-children');
      const child = flow.children[0]!.id;
      expect(await page.locator(`#job-children li[data-child="${child}"]`).textContent()).toContain('email');
      await page.click(`#job-children li[data-child="${child}"] button.toggle`);
      await expect.poll(() => page.locator(`#job-children li[data-child="${child}"]`).textContent()).toContain('No children.');
      await page.click(`#job-children li[data-child="${child}"] > a`);
      await expect.poll(() => page.locator('#job-id').textContent()).toBe(child);
      await page.click('#job-parent');
      await expect.poll(() => page.locator('#job-id').textContent()).toBe(flow.id);
      expect(watch.problems).toEqual([]);
    } finally {
      await page.close();
      await d.close();
    }
  });

  test('history draws 1 h and 24 h with uPlot and a kind of its own; the audit trail pages back with its cursor', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const { failed } = await busyQueue(queue);
    const nowMs = (await queue.stats()).nowMs;
    const d = await startTestDashboard([queue]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 1000 } });
    const watch = watchPage(page);
    await contractRoutes(page, answersFor(queueName, failed, nowMs));
    try {
      await page.goto(`${d.url}queues/${queueName}`);
      await page.click('#queue-nav [data-page="history"]');
      await expect.poll(() => page.locator('#history-counts').getAttribute('data-points')).toBe('60');
      expect(await page.locator('#history-counts canvas').count()).toBe(1);
      expect(Number(await page.locator('#history-counts').getAttribute('data-max-2'))).toBeGreaterThan(0);
      expect(await page.locator('#history-runtime').getAttribute('data-points')).toBe('60');
      await page.screenshot({ path: `${SCREENSHOTS}dashboard-history.png`, fullPage: true });
      await page.click('#history-ranges [data-range="24h"]');
      await expect.poll(() => page.locator('#history-counts').getAttribute('data-points')).toBe('288');
      expect(new URL(page.url()).searchParams.get('range')).toBe('24h');
      await page.selectOption('#history-kind', 'email');
      await expect.poll(() => new URL(page.url()).searchParams.get('kind')).toBe('email');
      await page.goBack();
      await expect.poll(() => new URL(page.url()).searchParams.get('kind')).toBeNull();

      await page.click('#queue-nav [data-page="audit"]');
      await expect.poll(() => page.locator('#audit tr[data-audit]').count()).toBe(2);
      expect(await page.locator('#audit tr[data-audit="a-1"]').textContent()).toContain('{"state":"failed","kind":"email"}');
      expect(await page.locator('#audit tr[data-audit="a-2"]').textContent()).toContain('ops-team');
      await page.click('#audit-older');
      await expect.poll(() => new URL(page.url()).searchParams.get('before')).toBe('a-1');
      await expect.poll(() => page.locator('#audit-older').count()).toBe(0);
      expect(await page.locator('#session-label').textContent()).toBe('ops-team');
      expect(watch.problems).toEqual([]);
    } finally {
      await page.close();
      await d.close();
    }
  });

  test('a viewer sees every page and no action control on any of them', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const { failed, flow } = await busyQueue(queue);
    const nowMs = (await queue.stats()).nowMs;
    const d = await startTestDashboard([queue], { credentials: { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer } });
    const context = await browser.current.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const watch = watchPage(page);
    await contractRoutes(page, answersFor(queueName, failed, nowMs));
    try {
      // A link to a job's page, opened signed out, comes back to that page after the sign-in.
      await page.goto(`${d.url}queues/${queueName}/jobs/${failed}`);
      await expect.poll(() => page.url()).toBe(`${d.url}login?next=/queues/${queueName}/jobs/${failed}`);
      await page.fill('#token', TOKENS.viewer);
      await page.click('#login-form button[type=submit]');
      await expect.poll(() => page.locator('#job-id').textContent()).toBe(failed);
      expect(new URL(page.url()).pathname).toBe(`/queues/${queueName}/jobs/${failed}`);
      const pages: [string, string][] = [
        ['failed', '#jobs tr[data-id]'],
        ['pending', '#jobs tr[data-id]'],
        ['delayed', '#jobs tr[data-id]'],
        ['waiting', '#jobs tr[data-id]'],
        [`jobs/${failed}`, '#job-attempt-list'],
        [`jobs/${flow.id}`, '#job-children'],
        ['schedules', '#schedules tr[data-schedule]'],
        ['workers', '#workers tr[data-worker]'],
        ['workers/w-1', '#worker-host'],
        ['history', '#history-counts'],
        ['audit', '#audit tr[data-audit]'],
      ];
      for (const [path, shown] of pages) {
        await page.goto(`${d.url}queues/${queueName}/${path}`);
        await expect.poll(() => page.locator(shown).count(), { message: path }).toBeGreaterThan(0);
        expect(await page.locator('#queue-actions').textContent(), path).toBe('read-only');
        expect(await page.locator(CONTROLS).count(), path).toBe(0);
      }
      expect(watch.problems).toEqual([]);
    } finally {
      await context.close();
      await d.close();
    }
  });

  test('every page fits a 390 px and a 360 px wide screen: nothing scrolls sideways', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const { failed, flow } = await busyQueue(queue);
    const nowMs = (await queue.stats()).nowMs;
    const d = await startTestDashboard([queue]);
    try {
      for (const width of [390, 360]) {
        const page = await browser.current.newPage({ viewport: { width, height: 844 }, isMobile: true, hasTouch: true });
        const watch = watchPage(page);
        await contractRoutes(page, answersFor(queueName, failed, nowMs));
        const pages: [string, string][] = [
          ['', `article[data-queue="${queueName}"] canvas`],
          [`queues/${queueName}/failed`, '#jobs tr[data-id]'],
          [`queues/${queueName}/pending?kind=email&text=example`, '#jobs tr[data-id]'],
          [`queues/${queueName}/jobs/${failed}`, '#job-attempt-list'],
          [`queues/${queueName}/jobs/${flow.id}`, '#job-children'],
          [`queues/${queueName}/schedules`, '#schedules tr[data-schedule]'],
          [`queues/${queueName}/workers`, '#workers tr[data-worker]'],
          [`queues/${queueName}/workers/w-1`, '#worker-host'],
          [`queues/${queueName}/history`, '#history-counts canvas'],
          [`queues/${queueName}/audit`, '#audit tr[data-audit]'],
        ];
        try {
          for (const [path, shown] of pages) {
            await page.goto(`${d.url}${path}`);
            // The overview's chart needs two samples: the page polls until it has them.
            await expect.poll(() => page.locator(shown).count(), { message: `${width}px ${path}`, timeout: 20_000 }).toBeGreaterThan(0);
            expect(await overflowX(page), `${width}px ${path}`).toBeLessThanOrEqual(0);
            if (width === 390 && path.includes('/failed')) await page.screenshot({ path: `${SCREENSHOTS}dashboard-390px.png`, fullPage: true });
          }
          // The confirmation dialog fits too.
          await page.goto(`${d.url}queues/${queueName}/failed`);
          await page.click('#redrive-all');
          expect(await page.locator('#confirm').evaluate((dialog) => dialog.getBoundingClientRect().right)).toBeLessThanOrEqual(width);
          expect(watch.problems).toEqual([]);
        } finally {
          await page.close();
        }
      }
    } finally {
      await d.close();
    }
  });
});
