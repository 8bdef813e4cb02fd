import { defineKinds, Queue } from '@jobs/core';
import { sendHeartbeat } from '@jobs/core/internal';
import { redisTest as test, type TestRedis } from '@jobs/testing';
import { createWorker } from '@jobs/worker';
import { describe, expect } from 'vitest';
import { jobQueueSource, type DashboardDataSource } from '../src/index.ts';
import { namedQueues } from '../src/job-queue-source.ts';
import { startTestDashboard, TOKENS } from './dashboard-client.ts';
import { SCREENSHOTS, signIn, suiteBrowser } from './dashboard-page.ts';

const kinds = defineKinds({
  email: { schema: { type: 'object', properties: { to: { type: 'string' } } } },
  report: { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
});
type TestQueue = ReturnType<typeof openQueue>;
const credentials = { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer };

function openQueue(redis: TestRedis, queueName: string) {
  return new Queue({ redis, queue: queueName, kinds });
}

async function deadLetter(queue: TestQueue, to: string): Promise<string> {
  const id = await queue.enqueue('email', { to }, { maxAttempts: 1 });
  const [job] = await queue.claim();
  if (job?.id !== id) throw new Error('expected to claim the job just enqueued');
  await queue.fail(job, new Error(`SMTP 552: mailbox ${to} is full`));
  return id;
}

describe('the dashboard in a real browser', () => {
  const browser = suiteBrowser();

  test('login is refused with a wrong token and accepted with the right one; a failed job is found by id and redriven', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await deadLetter(queue, 'ann@example.com');
    const hostile = '<img src=x onerror="window.__pwned=1">';
    const id = await deadLetter(queue, hostile);
    for (let i = 0; i < 3; i++) await queue.enqueue('report', { n: i });
    const d = await startTestDashboard([queue], { credentials });
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 1000 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      await page.goto(`${d.url}?poll=1000`);
      await expect.poll(() => page.url()).toMatch(/\/login$/);
      await page.fill('#token', 'not-the-token-at-all');
      await page.click('#login-form button[type=submit]');
      await expect.poll(() => page.locator('#login-error').isVisible()).toBe(true);
      await page.screenshot({ path: `${SCREENSHOTS}dashboard-login.png` });
      await page.fill('#token', TOKENS.operator);
      await page.click('#login-form button[type=submit]');
      await expect.poll(() => page.locator('#role').textContent()).toBe('operator');
      const card = page.locator(`article[data-queue="${queueName}"]`);
      await expect.poll(() => card.locator('[data-stat="failed"] dd').textContent()).toBe('2');
      await expect.poll(() => card.locator('[data-stat="pending"] dd').textContent()).toBe('3');

      await card.locator('h2 a').click();
      await expect.poll(() => page.locator('#queue-title').textContent()).toBe(queueName);
      expect(new URL(page.url()).pathname).toBe(`/queues/${queueName}`);
      await expect.poll(() => page.locator('#jobs tbody tr[data-id]').count()).toBe(2);
      await page.fill('#find-id', id);
      await page.click('#find-form button[type=submit]');
      await expect.poll(() => page.locator('#job-status').textContent()).toBe('failed');
      expect(new URL(page.url()).pathname).toBe(`/queues/${queueName}/jobs/${id}`);
      // Back and forward move between the views, inside the page.
      await page.goBack();
      await expect.poll(() => page.locator('#jobs tbody tr[data-id]').count()).toBe(2);
      await page.goForward();
      await expect.poll(() => page.locator('#job-status').textContent()).toBe('failed');
      expect(await page.locator('#job-error').textContent()).toBe(`SMTP 552: mailbox ${hostile} is full`);
      // Hostile payload text is shown as text, never run.
      expect(await page.locator('#job-payload').textContent()).toContain(JSON.stringify(hostile));
      expect(await page.locator('#job img, #jobs img').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
      await page.screenshot({ path: `${SCREENSHOTS}dashboard-failed-job.png`, fullPage: true });

      await page.click('#job-retry');
      await expect.poll(() => page.locator('#message').textContent()).toBe(`redrove job ${id} to pending`);
      await expect.poll(() => page.locator('#job-status').textContent()).toBe('pending');
      expect((await queue.getJob(id))?.status).toBe('pending');
      await expect.poll(() => page.locator('#state-tabs [data-state="failed"] .count').textContent()).toBe('1');

      // Redrive all failed: the dialog names the count; purge wants the name typed.
      await page.click('#redrive-all');
      await expect.poll(() => page.locator('#confirm-text').textContent()).toContain('Redrive the 1 failed job(s)');
      await page.click('#confirm-ok');
      await expect.poll(() => page.locator('#message').textContent()).toBe(`redrove 1 failed job(s) of ${queueName}`);
      await page.click('#purge');
      expect(await page.locator('#confirm-ok').isDisabled()).toBe(true);
      await page.fill('#confirm-input', 'wrong');
      expect(await page.locator('#confirm-ok').isDisabled()).toBe(true);
      await page.click('#confirm button[value=cancel]');
      expect((await queue.stats()).pendingDepth).toBe(5);
      // The queue's name typed: the purge runs, and says how many keys it deleted.
      await page.click('#purge');
      await page.fill('#confirm-input', queueName);
      expect(await page.locator('#confirm-ok').isDisabled()).toBe(false);
      await page.click('#confirm-ok');
      await expect.poll(() => page.locator('#message').textContent()).toMatch(new RegExp(`^purged ${queueName}: deleted \\d+ key\\(s\\)$`));
      expect((await queue.stats()).pendingDepth).toBe(0);
      expect(pageErrors).toEqual([]);
    } finally {
      await page.close();
      await d.close();
    }
  }, 120_000);

  test('a viewer sees the queues and jobs but no action, and a forged action from its page is refused', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await deadLetter(queue, 'vic@example.com');
    const d = await startTestDashboard([queue], { credentials });
    const context = await browser.current.newContext();
    const page = await context.newPage();
    try {
      await signIn(page, d.url, TOKENS.viewer);
      await page.locator(`article[data-queue="${queueName}"] h2 a`).click();
      await expect.poll(() => page.locator('#queue-actions').textContent()).toBe('read-only');
      await expect.poll(() => page.locator(`#jobs tr[data-id="${id}"]`).count()).toBe(1);
      expect(await page.locator('#redrive-all, #purge, #pause-toggle, #bulk, [data-select], [data-row-action], #select-all').count()).toBe(0);
      await page.locator(`#jobs tr[data-id="${id}"] a`).click();
      await expect.poll(() => page.locator('#job-status').textContent()).toBe('failed');
      expect(await page.locator('#job-retry, #job-cancel, #job-delete, #job-promote, #job-priority').count()).toBe(0);
      const status = await page.evaluate(async (path) => {
        const session = (await (await fetch('/api/session')).json()) as { csrfToken: string };
        const answer = await fetch(path, { method: 'POST', headers: { 'x-csrf-token': session.csrfToken, 'content-type': 'application/json' }, body: '{}' });
        return answer.status;
      }, `/api/queues/${queueName}/jobs/${id}/retry`);
      expect(status).toBe(403);
      expect((await queue.getJob(id))?.status).toBe('failed');
    } finally {
      await context.close();
      await d.close();
    }
  }, 120_000);

  test('an operator cancels a running job from its page: the worker running it aborts its handler with JOBS_CANCELLED', async ({ redis, redisUrl, queueName }) => {
    const queue = openQueue(redis, queueName);
    let reason: unknown;
    const worker = createWorker({
      redis: redisUrl,
      queue: queueName,
      kinds,
      visibilityMs: 60_000,
      handlers: {
        email: () => undefined,
        report: (_payload, { signal }) =>
          new Promise((_resolve, reject) =>
            signal.addEventListener('abort', () => {
              reason = signal.reason;
              reject(signal.reason as Error);
            }),
          ),
      },
    });
    const id = await queue.enqueue('report', { n: 1 });
    const d = await startTestDashboard([queue], { credentials });
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await signIn(page, `${d.url}?poll=250`, TOKENS.operator);
      await page.goto(new URL(`queues/${queueName}/jobs/${id}?poll=250`, d.url).toString());
      await expect.poll(() => page.locator('#job-status').textContent()).toBe('processing');
      expect(await page.locator('#job-delete').count()).toBe(0);
      await page.click('#job-cancel');
      await expect.poll(() => page.locator('#message').textContent()).toBe(`cancelled job ${id}`);
      await expect.poll(() => page.locator('#job-status').textContent()).toBe('cancelled');
      await expect.poll(() => (reason as { code?: string } | undefined)?.code).toBe('JOBS_CANCELLED');
      expect((await queue.getJob(id))?.status).toBe('cancelled');
    } finally {
      await page.close();
      await worker.close({ graceMs: 0 });
      await d.close();
    }
  });

  test('the chart draws new points as jobs complete', async ({ redis, redisUrl, queueName }) => {
    const queue = openQueue(redis, queueName);
    const d = await startTestDashboard([queue]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 800 } });
    // Every fifth report fails on its only attempt, so the failed line has something to draw.
    const report = ({ n }: { n?: number }) => {
      if (n !== undefined && n % 5 === 0) throw new Error(`report ${n}: upstream answered 503`);
      return { done: n ?? null };
    };
    const worker = createWorker({ redis: redisUrl, queue: queueName, kinds, concurrency: 2, handlers: { email: () => ({ sent: true }), report } });
    try {
      await page.goto(`${d.url}?poll=250`);
      const chart = page.locator(`article[data-queue="${queueName}"] .chart`);
      await expect.poll(() => chart.count()).toBe(1);
      const pointsOf = async (): Promise<number> => Number(await chart.getAttribute('data-points'));
      const before = await pointsOf();
      // Jobs complete while the page polls: a batch each time the chart grows, until it has shown them.
      let completedShown = false;
      await expect
        .poll(
          async () => {
            for (let i = 0; i < 20; i++) await queue.enqueue('report', { n: i }, { maxAttempts: 1 });
            // The completed line's highest point: above 0, a second with completions in it.
            completedShown ||= Number(await chart.getAttribute('data-max-1')) > 0;
            return completedShown && (await pointsOf()) >= before + 6;
          },
          { timeout: 30_000, interval: 500 },
        )
        .toBe(true);
      expect(await chart.locator('canvas').count()).toBe(1);
      await page.screenshot({ path: `${SCREENSHOTS}dashboard-overview.png`, fullPage: true });
      await page.locator(`article[data-queue="${queueName}"] [data-stat="failed"] a`).click();
      await expect.poll(() => page.locator('#jobs tbody tr[data-id]').count()).toBeGreaterThan(0);
      await page.screenshot({ path: `${SCREENSHOTS}dashboard-failed-list.png` });
      expect((await queue.stats()).completedTotal).toBeGreaterThan(0);
    } finally {
      await worker.close();
      await page.close();
      await d.close();
    }
  }, 120_000);

  test('polls never pile up: with answers slower than the interval, one request at a time', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const plain = jobQueueSource([queue]);
    let inFlight = 0;
    let most = 0;
    let answered = 0;
    let release: (() => void) | undefined;
    // Every stats read waits for the test to let it go: the server answers as slowly as we like.
    const source: DashboardDataSource = {
      ...plain,
      stats: async (name) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise<void>((resolve) => (release = resolve));
        inFlight--;
        answered++;
        return plain.stats(name);
      },
    };
    const d = await startTestDashboard(undefined, { source });
    const page = await browser.current.newPage();
    try {
      // A 50 ms interval, and answers that take as long as the test holds them.
      await page.goto(`${d.url}?poll=50`);
      for (let round = 1; round <= 5; round++) {
        await expect.poll(() => inFlight).toBe(1);
        // The page keeps its timer running while it waits: give it time to (wrongly) fire again.
        await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
        expect(inFlight).toBe(1);
        release?.();
        await expect.poll(() => answered).toBe(round);
      }
      expect(most).toBe(1);
      // The interval is settable on the page: "never" stops polling once the answer in flight is in.
      await expect.poll(() => inFlight).toBe(1);
      await page.selectOption('#poll-interval', '0');
      release?.();
      await expect.poll(() => answered).toBe(6);
      await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
      expect(inFlight).toBe(0);
      expect(await page.evaluate(() => (globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem('jobs-dashboard-poll-ms'))).toBe('0');
    } finally {
      while (inFlight > 0) release?.();
      await page.close();
      await d.close();
    }
  }, 120_000);

  test('a queue paused from the page claims nothing, a kind paused from it is skipped, and each resumed claims again', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const mail = await queue.enqueue('email', { to: 'p@example.com' });
    const report = await queue.enqueue('report', { n: 1 });
    // A live worker (its heartbeat alone: no claims, so the test's own take the jobs), so the
    // queue reads "running" rather than "no live worker".
    await sendHeartbeat(queue.partitions[0]!.ctx, { id: 'idle-worker', host: 'h', pid: 1, version: '', kinds: ['email', 'report'], concurrency: 1, running: [], ttlMs: 600_000 });
    // The daemon's source: queues opened without their kinds, so a kind is typed by name.
    const d = await startTestDashboard(undefined, { source: jobQueueSource(namedQueues(redis, () => [queueName])) });
    const page = await browser.current.newPage();
    try {
      await page.goto(`${d.url}?poll=500`);
      await page.locator(`article[data-queue="${queueName}"] h2 a`).click();
      await expect.poll(() => page.locator('#queue-flow [data-flow]').textContent()).toBe('running');
      await page.click('#pause-toggle');
      await expect.poll(() => page.locator('#queue-flow [data-flow]').textContent()).toBe('paused');
      expect(await page.locator('#message').textContent()).toBe(`paused ${queueName}`);
      expect((await queue.stats()).paused).toBe(true);
      expect(await queue.claim({ max: 10 })).toEqual([]);
      expect(await page.locator('#pause-toggle').textContent()).toBe('Resume');
      await page.click('#pause-toggle');
      await expect.poll(() => page.locator('#queue-flow [data-flow]').textContent()).toBe('running');
      expect((await queue.stats()).paused).toBe(false);

      // One kind: its jobs are set aside, the others run.
      await page.fill('#pause-kind', 'report');
      await page.click('#kind-pause-form button[type=submit]');
      await expect.poll(() => page.locator('#queue-flow [data-paused-kind="report"]').textContent()).toBe('report paused');
      expect(await page.locator('#message').textContent()).toBe(`paused kind report of ${queueName}`);
      expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([mail]);
      await expect.poll(() => page.locator('#queue-elsewhere').textContent()).toBe('1 set aside while their kind is paused or limited');
      await page.click('#queue-flow [data-resume-kind="report"]');
      await expect.poll(() => page.locator('#queue-flow [data-paused-kind]').count()).toBe(0);
      expect((await queue.claim({ max: 10 })).map((job) => job.id)).toEqual([report]);
    } finally {
      await page.close();
      await d.close();
    }
  }, 120_000);

  test("jobs at other priorities and behind their group's turn are listed under waiting, in the order they will start", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const first = await queue.enqueue('email', { to: 'first@example.com' });
    const urgent = await queue.enqueue('report', { n: 1 }, { priority: 5 });
    const acme = [await queue.enqueue('email', { to: 'a1@example.com' }, { group: 'acme' }), await queue.enqueue('email', { to: 'a2@example.com' }, { group: 'acme' })];
    const d = await startTestDashboard([queue]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(`${d.url}?poll=500`);
      const card = page.locator(`article[data-queue="${queueName}"]`);
      await expect.poll(() => card.locator('[data-stat="elsewhere"]').textContent()).toBe("+1 waiting at other priorities · 1 waiting for their group's turn");
      // The overview's note opens the queue on its waiting list.
      await card.locator('[data-stat="elsewhere"] a').click();
      await expect.poll(() => page.locator('#state-tabs [data-state="waiting"]').getAttribute('aria-current')).toBe('page');
      expect(new URL(page.url()).pathname).toBe(`/queues/${queueName}/waiting`);
      expect(await page.locator('#state-tabs [data-state="waiting"] .count').textContent()).toBe('4');
      expect(await page.locator('#state-tabs [data-state="pending"] .count').textContent()).toBe('2');
      await expect.poll(() => page.locator('#jobs tbody tr[data-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id')))).toEqual([urgent, first, ...acme]);
      await page.screenshot({ path: `${SCREENSHOTS}dashboard-waiting.png`, fullPage: true });
      // And one claim at a time starts them in that order.
      const started: string[] = [];
      for (let i = 0; i < 4; i++) started.push(...(await queue.claim({ max: 1 })).map((job) => job.id));
      expect(started).toEqual([urgent, first, ...acme]);
      await expect.poll(() => page.locator('#state-tabs [data-state="waiting"] .count').textContent()).toBe('0');
    } finally {
      await page.close();
      await d.close();
    }
  }, 120_000);

  test('with too many groups to count, the waiting tab shows at least the jobs outside their lists and pages without a total', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const acme = [];
    for (let i = 0; i < 3; i++) acme.push(await queue.enqueue('email', { to: `a${i}@example.com` }, { group: 'acme' }));
    const plain = jobQueueSource([queue]);
    // As the queue's stats read when more than 10,000 groups wait.
    const source: DashboardDataSource = { ...plain, stats: async (name) => ({ ...(await plain.stats(name)), groupedDepth: null, waitingDepth: null }) };
    const d = await startTestDashboard(undefined, { source });
    const page = await browser.current.newPage();
    try {
      await page.goto(`${d.url}?poll=500`);
      const card = page.locator(`article[data-queue="${queueName}"]`);
      await expect.poll(() => card.locator('[data-stat="elsewhere"]').textContent()).toBe('jobs of 1 group waiting for their turn');
      await card.locator('[data-stat="elsewhere"] a').click();
      await expect.poll(() => page.locator('#state-tabs [data-state="waiting"] .count').textContent()).toBe('1+');
      await expect.poll(() => page.locator('#jobs tbody tr[data-id]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id')))).toEqual(acme);
      expect(await page.locator('#page-info').textContent()).toBe('1–3');
      expect(await page.locator('#page-next').isDisabled()).toBe(true);
    } finally {
      await page.close();
      await d.close();
    }
  }, 120_000);

  test("the schedules panel shows a real schedule's next run and a paused one's status", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const { nextRunAt } = await queue.schedules.upsert({ id: 'nightly-report', kind: 'report', payload: { n: 7 }, cron: '0 3 * * *', tz: 'Europe/Paris' });
    await queue.schedules.upsert({ id: 'mail-poll', kind: 'email', payload: { to: 'poll@example.com' }, every: 30_000 });
    await queue.schedules.pause('mail-poll');
    // Behind a default-priority job, so that the prioritized ones wait in their level's list.
    await queue.enqueue('email', { to: 'first@example.com' });
    for (let i = 0; i < 3; i++) await queue.enqueue('report', { n: i }, { priority: 5 });
    await queue.pause({ kind: 'email' });
    const d = await startTestDashboard([queue]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(`${d.url}?poll=500`);
      await page.locator(`article[data-queue="${queueName}"] h2 a`).click();
      await page.click('#queue-nav [data-page="schedules"]');
      expect(new URL(page.url()).pathname).toBe(`/queues/${queueName}/schedules`);
      const nightly = page.locator('#schedules tr[data-schedule="nightly-report"]');
      await expect.poll(() => nightly.locator('[data-next-run]').getAttribute('data-next-run')).toBe(String(nextRunAt));
      expect(await nightly.locator('td').allTextContents()).toEqual([
        'nightly-report',
        'report',
        '0 3 * * * (Europe/Paris)',
        'active',
        new Date(nextRunAt as number).toISOString().replace('T', ' ').replace('Z', ' UTC'),
      ]);
      expect(await page.locator('#schedules tr[data-schedule="mail-poll"] td').allTextContents()).toEqual(['mail-poll', 'email', 'every 30 s', 'paused', '–']);
      // Each schedule has a URL of its own, which marks its row.
      await page.click('#schedules tr[data-schedule="mail-poll"] a');
      await expect.poll(() => page.locator('#schedules tr[data-schedule="mail-poll"]').getAttribute('aria-current')).toBe('true');
      expect(new URL(page.url()).pathname).toBe(`/queues/${queueName}/schedules/mail-poll`);
      expect(await page.locator('#schedules tr.selected').count()).toBe(1);
      // The kinds the queue knows are offered when pausing one, and jobs at other priorities are counted.
      expect(await page.locator('#known-kinds option').evaluateAll((options) => options.map((option) => option.getAttribute('value')))).toEqual(['email', 'report']);
      expect(await page.locator('#queue-elsewhere').textContent()).toBe('+3 waiting at other priorities');
      await page.screenshot({ path: `${SCREENSHOTS}dashboard-flow-schedules.png`, fullPage: true });
    } finally {
      await page.close();
      await d.close();
    }
  }, 120_000);
});
