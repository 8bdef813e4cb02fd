import { defineKinds, Queue, type AuditEntry, type RedisClient } from '@jobs/core';
import { sendHeartbeat } from '@jobs/core/internal';
import { redisTest as test, within } from '@jobs/testing';
import { createWorker } from '@jobs/worker';
import { describe, expect } from 'vitest';
import { startTestDashboard, TOKENS, type Session, type TestDashboard } from './dashboard-client.ts';
import { overflowX, SCREENSHOTS, signIn, suiteBrowser, watchPage } from './dashboard-page.ts';

const kinds = defineKinds({
  email: { schema: { type: 'object', properties: { to: { type: 'string' } } } },
  report: { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
  digest: { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
});
/** Every control that acts: none may show to a viewer. */
const CONTROLS = '[data-row-action], [data-bulk], [data-bulk-filter], [data-select], #select-all, #bulk, #job-retry, #job-cancel, #job-delete, #job-promote, #job-priority, #pause-toggle, #redrive-all, #purge, #kind-pause-form, [data-resume-kind]';
/** An operator's token with a label of its own: the trail says who acted. */
const OPS_TEAM = { token: 'ops-team-token-0123456789', role: 'operator', label: 'ops-team' } as const;

/** Kept log lines per job: a job that logs more shows how many were not kept. */
const LOG_LINES_KEPT = 2;

function openQueue(redis: RedisClient, queueName: string, workerId = 'w-pages') {
  // A retry runs again at once (no backoff), so the test claims it again without waiting.
  return new Queue({ redis, queue: queueName, kinds, eventLog: true, workerId, metricsHistory: true, jobLogs: { lines: LOG_LINES_KEPT }, backoff: { type: 'fixed', delayMs: 0 } });
}
type TestQueue = ReturnType<typeof openQueue>;

class SmtpError extends Error {
  override name = 'SmtpError';
}

/** What a mail handler throws: an error with a code (its class), a stack through `sendMail`, and its cause. */
function sendMail(): Error {
  try {
    throw new SmtpError('SMTP 552: mailbox full', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
  } catch (error) {
    return error as Error;
  }
}

/** Claims the job `id` (the only one due), or throws. */
async function claimOnly(queue: TestQueue, id: string) {
  const [job] = await queue.claim();
  if (job?.id !== id) throw new Error(`expected to claim job ${id}, claimed ${job?.id}`);
  return job;
}

/**
 * A job that logs and fails twice, as a handler would: attempt 1 times out and is retried,
 * attempt 2 fails with an error, a stack and a cause and is dead-lettered. Five lines logged,
 * two kept.
 */
async function failTwice(queue: TestQueue): Promise<string> {
  const id = await queue.enqueue('email', { to: 'fail@example.com' }, { maxAttempts: 2 });
  const first = await claimOnly(queue, id);
  await queue.appendLogs(first, [{ atMs: first.claimedAtMs, line: 'resolving smtp.example.com' }, { atMs: first.claimedAtMs + 1, line: 'connect timed out' }]);
  expect(await queue.fail(first, Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }))).toBe('retried');
  const second = await claimOnly(queue, id);
  await queue.appendLogs(second, [
    { atMs: second.claimedAtMs, line: 'resolving smtp.example.com' },
    { atMs: second.claimedAtMs + 1, line: 'connecting to smtp.example.com' },
    { atMs: second.claimedAtMs + 2, line: '552 mailbox full' },
  ]);
  expect(await queue.fail(second, sendMail())).toBe('failed');
  return id;
}

/**
 * A queue with a bit of everything: a dead-lettered job with its attempts and logs, pending,
 * delayed, a flow, a schedule, a live worker, and a metrics history of what was enqueued.
 */
async function busyQueue(queue: TestQueue) {
  const failed = await failTwice(queue);
  const flow = await queue.enqueueFlow({ kind: 'report', payload: { n: 1 }, children: [{ kind: 'email', payload: { to: 'child@example.com' } }, { kind: 'report', payload: { n: 2 } }] });
  await queue.enqueue('report', { n: 3 }, { delayMs: 3_600_000 });
  const pending = [];
  for (let i = 0; i < 3; i++) pending.push(await queue.enqueue('email', { to: `user${i}@example.com` }));
  await queue.schedules.upsert({ id: 'nightly-report', kind: 'report', payload: { n: 7 }, cron: '0 3 * * *' });
  // A batch sealed with no job: finished at once, it adds no job to the lists.
  await queue.batch({ id: 'import-1' }).seal();
  await sendHeartbeat(queue.partitions[0]!.ctx, { id: 'w-1', host: 'worker-host-1', pid: 4242, version: '1.0.0', kinds: ['email', 'report'], concurrency: 4, running: [], ttlMs: 600_000 });
  return { failed, flow, pending };
}

/**
 * Digests run by a real @jobs/worker, every fourth failing its first attempt: the worker counts
 * completions, retries and run times and adds them to the metrics history as it closes.
 */
async function runDigests(redis: RedisClient, queue: TestQueue, count: number): Promise<void> {
  for (let n = 0; n < count; n++) await queue.enqueue('digest', { n });
  const worker = createWorker({
    redis,
    queue: queue.name,
    kinds,
    metricsHistory: true,
    backoff: { type: 'fixed', delayMs: 0 },
    concurrency: 4,
    handlers: {
      // The work takes a few ms, more for a bigger digest: the run-time chart has a spread to draw.
      digest: async ({ n }, { attempt, log }) => {
        log(`digest ${n}, attempt ${attempt}`);
        await new Promise((done) => setTimeout(done, 2 + 3 * (n ?? 0)));
        if (attempt === 1 && (n ?? 0) % 4 === 0) throw new Error('upstream busy');
        return { n };
      },
      email: () => 'sent',
      report: () => 'done',
    },
  });
  try {
    await expect.poll(async () => (await queue.stats()).completedTotal, { timeout: 30_000 }).toBe(count);
  } finally {
    await within(worker.close(), 15_000, () => 'worker close');
  }
}

/** A pause and a resume of the queue through the dashboard's API, as `session`: two entries of its audit trail. */
async function pauseAndResume(d: TestDashboard, queueName: string, session: Session): Promise<void> {
  for (const action of ['pause', 'resume']) {
    const answer = await d.call('POST', `api/queues/${queueName}/${action}`, { session, body: {} });
    expect(answer.status, action).toBe(200);
  }
}

describe('the workspace in a real browser: every page', () => {
  const browser = suiteBrowser();

  test("a failed job's page shows its error with stack and cause, its attempts and logs; a flow's page its children, each linking back to its parent", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const { failed, flow } = await busyQueue(queue);
    const d = await startTestDashboard([queue]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 1100 } });
    const watch = watchPage(page);
    try {
      await page.goto(`${d.url}queues/${queueName}/jobs/${failed}`);
      await expect.poll(() => page.locator('#job-status').textContent()).toBe('failed');
      await page.locator('#job-logs li').first().waitFor();
      expect(await page.locator('#job-error-shape [data-error-depth="0"] [data-error-code]').textContent()).toBe('SmtpError');
      expect(await page.locator('#job-error-shape [data-error-depth="0"] .error-message').textContent()).toBe('SmtpError: SMTP 552: mailbox full');
      expect(await page.locator('#job-error-shape [data-error-depth="0"] .stack').textContent()).toContain('at sendMail (');
      expect(await page.locator('#job-error-shape [data-error-depth="1"]').textContent()).toContain('ECONNRESET socket hang up');
      expect(await page.locator('#job-attempt-list tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-attempt')))).toEqual(['1', '2']);
      const [retried, dead] = [await page.locator('#job-attempt-list tr[data-attempt="1"]').textContent(), await page.locator('#job-attempt-list tr[data-attempt="2"]').textContent()];
      for (const text of ['retried', 'w-pages', 'ETIMEDOUT timed out']) expect(retried).toContain(text);
      for (const text of ['failed', 'w-pages', 'SmtpError']) expect(dead).toContain(text);
      expect(await page.locator('#job-logs li').allTextContents()).toEqual([expect.stringContaining('connecting to smtp.example.com'), expect.stringContaining('552 mailbox full')]);
      expect(await page.locator('#job-logs li').evaluateAll((items) => items.map((item) => item.getAttribute('data-attempt')))).toEqual(['2', '2']);
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

  test('history draws what Redis counted for 1 h and 24 h with uPlot, and a kind of its own; the audit trail records the page\'s actions and pages back with its cursor', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await runDigests(redis, queue, 12);
    const { failed, pending } = await busyQueue(queue);
    const d = await startTestDashboard([queue], { credentials: { tokens: [OPS_TEAM] } });
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 1000 } });
    const watch = watchPage(page);
    try {
      await signIn(page, d.url, OPS_TEAM.token);
      await page.goto(`${d.url}queues/${queueName}`);
      await page.click('#queue-nav [data-page="history"]');
      await expect.poll(() => page.locator('#history-counts').getAttribute('data-points')).toBe('60');
      // uPlot draws its canvas in an effect, just after the chart's box is rendered.
      await expect.poll(() => page.locator('#history-counts canvas').count()).toBe(1);
      // The most enqueued in a minute, as Redis counted it (the test's jobs, within the hour).
      const hour = await queue.history({ since: 3_600_000 });
      expect(Math.max(...hour.enqueued)).toBeGreaterThan(0);
      expect(Number(await page.locator('#history-counts').getAttribute('data-max-1'))).toBe(Math.max(...hour.enqueued));
      // Completions and retries, as the worker counted them, and their run times.
      expect(Math.max(...hour.completed)).toBeGreaterThan(0);
      expect(Number(await page.locator('#history-counts').getAttribute('data-max-2'))).toBe(Math.max(...hour.completed));
      expect(Number(await page.locator('#history-counts').getAttribute('data-max-4'))).toBe(Math.max(...hour.retried));
      expect(await page.locator('#history-runtime').getAttribute('data-points')).toBe('60');
      expect(Number(await page.locator('#history-runtime').getAttribute('data-max-1'))).toBe(Math.max(0, ...hour.runMsP50.filter((p): p is number => p !== null)));
      expect(Number(await page.locator('#history-runtime').getAttribute('data-max-1'))).toBeGreaterThan(0);
      await page.screenshot({ path: `${SCREENSHOTS}dashboard-history.png`, fullPage: true });
      await page.click('#history-ranges [data-range="24h"]');
      await expect.poll(() => page.locator('#history-counts').getAttribute('data-points')).toBe(String((await queue.history({ since: 86_400_000 })).atMs.length));
      expect(new URL(page.url()).searchParams.get('range')).toBe('24h');
      expect(await page.locator('#history-kind option').allTextContents()).toEqual(['every kind', 'digest', 'email', 'report']);
      await page.selectOption('#history-kind', 'report');
      await expect.poll(() => new URL(page.url()).searchParams.get('kind')).toBe('report');
      // Reports alone: the flow's two and the delayed one, all in the same minute or two.
      await expect.poll(() => page.locator('#history-counts').getAttribute('data-max-1')).toBe(String(Math.max(...(await queue.history({ since: 86_400_000, kind: 'report' })).enqueued)));
      await page.goBack();
      await expect.poll(() => new URL(page.url()).searchParams.get('kind')).toBeNull();

      // Older entries first, through the API as the same token, then two actions in the page.
      const api = await d.login(OPS_TEAM.token);
      for (let i = 0; i < 25; i++) await pauseAndResume(d, queueName, api);
      await page.goto(`${d.url}queues/${queueName}/failed?kind=email`);
      await expect.poll(() => page.locator('#jobs tr[data-id]').count()).toBe(1);
      await page.click('#bulk [data-bulk-filter="retry"]');
      await page.click('#confirm-ok');
      await expect.poll(() => page.locator('#message').textContent()).toBe('retried 1 of 1 job');
      expect((await queue.getJob(failed))?.status).toBe('pending');
      await page.click('#state-tabs [data-state="pending"]');
      await page.click(`#jobs tr[data-id="${pending[0]}"] [data-row-action="cancel"]`);
      await expect.poll(() => page.locator('#message').textContent()).toBe(`cancelled job ${pending[0]}`);
      expect((await queue.getJob(pending[0]!))?.status).toBe('cancelled');

      const newest = await queue.auditTrail({ limit: 50 });
      const [cancelled, bulk] = newest.entries as [AuditEntry, AuditEntry];
      expect([cancelled.action, bulk.action, newest.next]).toEqual(['cancel', 'bulk:retry', expect.any(String)]);
      await page.click('#queue-nav [data-page="audit"]');
      await expect.poll(() => page.locator('#audit tr[data-audit]').count()).toBe(50);
      expect(await page.locator('#audit tr[data-audit]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-audit')))).toEqual(newest.entries.map((entry) => entry.id));
      const cancelRow = await page.locator(`#audit tr[data-audit="${cancelled.id}"]`).textContent();
      for (const text of ['operator', 'ops-team', 'cancel', pending[0]!]) expect(cancelRow).toContain(text);
      const bulkRow = await page.locator(`#audit tr[data-audit="${bulk.id}"]`).textContent();
      for (const text of ['bulk:retry', '{"state":"failed","kind":"email","offset":0}']) expect(bulkRow).toContain(text);
      expect(await page.locator(`#audit tr[data-audit="${bulk.id}"] td`).first().textContent()).toBe(new Date(bulk.atMs).toISOString().replace('T', ' ').replace('Z', ' UTC'));
      await page.click('#audit-older');
      await expect.poll(() => new URL(page.url()).searchParams.get('before')).toBe(newest.next);
      await expect.poll(() => page.locator('#audit tr[data-audit]').count()).toBe(2);
      // The oldest two: the first pause and resume, newest first.
      expect(await page.locator('#audit tr[data-audit] td:nth-child(3)').allTextContents()).toEqual(['resume', 'pause']);
      expect(await page.locator('#audit-older').count()).toBe(0);
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
    const d = await startTestDashboard([queue], { credentials: { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer } });
    // An operator acted: the trail has entries for the viewer to read.
    await pauseAndResume(d, queueName, await d.login(TOKENS.operator));
    const context = await browser.current.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const watch = watchPage(page);
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
        ['batches', '#batches tr[data-batch]'],
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
    const d = await startTestDashboard([queue]);
    await pauseAndResume(d, queueName, await d.loopbackSession());
    try {
      for (const width of [390, 360]) {
        const page = await browser.current.newPage({ viewport: { width, height: 844 }, isMobile: true, hasTouch: true });
        const watch = watchPage(page);
        const pages: [string, string][] = [
          ['', `article[data-queue="${queueName}"] canvas`],
          [`queues/${queueName}/failed`, '#jobs tr[data-id]'],
          [`queues/${queueName}/pending?kind=email&text=example`, '#jobs tr[data-id]'],
          [`queues/${queueName}/jobs/${failed}`, '#job-attempt-list'],
          [`queues/${queueName}/jobs/${flow.id}`, '#job-children'],
          [`queues/${queueName}/schedules`, '#schedules tr[data-schedule]'],
          [`queues/${queueName}/workers`, '#workers tr[data-worker]'],
          [`queues/${queueName}/workers/w-1`, '#worker-host'],
          [`queues/${queueName}/batches`, '#batches tr[data-batch]'],
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
