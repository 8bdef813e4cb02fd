import { defineKinds, Queue, queueKeys } from '@jobs/core';
import { redisTest as test, type TestRedis } from '@jobs/testing';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { startTestDashboard } from './dashboard-client.ts';
import { RESULTS, suiteBrowser } from './dashboard-page.ts';
import { SCRIPT } from './dashboard-hostile.ts';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { to: { type: 'string' } } } } });
const IMG = '<img src=x onerror="window.__pwned=1">';

function openQueue(redis: TestRedis, queueName: string, workerId = 'w-browser') {
  return new Queue({ redis, queue: queueName, kinds, eventLog: true, workerId });
}

/** Opens the dashboard at `url` and goes to queue `queueName`'s view from its card. */
async function openQueueView(page: Page, url: string, queueName: string): Promise<void> {
  await page.goto(`${url}?poll=1000`);
  await page.locator(`article[data-queue="${queueName}"] h2 a`).click();
  await expect.poll(() => page.locator('#queue-title').textContent()).toBe(queueName);
}

/** Opens job `id`'s detail through the find box and waits for its reasons. */
async function openJob(page: Page, id: string): Promise<void> {
  await page.fill('#find-id', id);
  await page.click('#find-form button[type=submit]');
  await expect.poll(() => page.locator('#job-id').textContent()).toBe(id);
  await expect.poll(() => page.locator('#job-why li').count()).toBeGreaterThan(0);
}

const codes = (page: Page): Promise<(string | null)[]> => page.locator('#job-why li').evaluateAll((items) => items.map((item) => item.getAttribute('data-code')));
const line = (page: Page, code: string): Promise<string | null> => page.locator(`#job-why li[data-code="${code}"]`).textContent();

describe('the dashboard in a real browser: why a job is not running', () => {
  const browser = suiteBrowser();

  test("a job's detail says why it waits (the cap and the job holding it, parked, no live worker) and who runs the one running", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.setLimits({ kinds: { email: { concurrency: 1 } } });
    const first = await queue.enqueue('email', { to: 'a@example.com' });
    const second = await queue.enqueue('email', { to: 'b@example.com' });
    const [running] = await queue.claim({ max: 10 });
    expect(running?.id).toBe(first);
    const d = await startTestDashboard([queue]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 1000 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      await openQueueView(page, d.url, queueName);
      await openJob(page, second);
      expect(await codes(page)).toEqual(['kind-cap-full', 'parked', 'no-live-worker']);
      expect(await page.locator('#job h3').first().textContent()).toBe('Why it is not running');
      expect(await line(page, 'kind-cap-full')).toContain(`kind email may run 1 at a time, and its slots are held by ${first}; a slot frees at ${new Date(running!.leaseExpiresAtMs).toISOString()}`);
      expect(await line(page, 'no-live-worker')).toBe('no live worker handles kind email (0 workers are alive for other kinds)');
      await page.screenshot({ path: `${RESULTS}dashboard-why.png`, fullPage: true });

      await openJob(page, first);
      expect(await codes(page)).toEqual(['running']);
      expect(await page.locator('#job h3').first().textContent()).toBe('Running');
      expect(await line(page, 'running')).toContain(`running: claimed by worker w-browser at ${new Date(running!.claimedAtMs).toISOString()}`);
      expect(pageErrors).toEqual([]);
    } finally {
      await page.close();
      await d.close();
    }
  }, 120_000);

  test('every value a reason shows (kind, group, the ids holding a cap, a worker, an error) is drawn as text', async ({ redis, queueName }) => {
    // A worker id may hold any printable character but a space.
    const hostileWorker = '<img/src=x/onerror=window.__pwned=1>';
    const queue = openQueue(redis, queueName, hostileWorker);
    const k = queueKeys(queueName);
    // A foreign client's job: a hostile kind in its payload, a hostile group, the kind paused and
    // the group's cap held by a hostile member, all written by hand.
    await redis.hset(k.job('h-why-1'), { id: 'h-why-1', payload: JSON.stringify({ kind: SCRIPT }), status: 'pending', attempts: '0', enqueued_at_ms: '1', claim_token: '', group: IMG });
    await redis.lpush(k.pending, 'h-why-1');
    await redis.hset(k.admission, `paused_kind:${SCRIPT}`, '1', 'group_cap', '1');
    // Held for an hour, by the Redis clock.
    await redis.zadd(k.groupRunning(IMG), (await queue.stats()).nowMs + 3_600_000, SCRIPT);
    const failing = await queue.enqueue('email', { to: 'x@example.com' }, { maxAttempts: 1 });
    const [attempt] = await queue.claim();
    await queue.fail(attempt!, new Error(`SMTP 552 ${IMG}`));
    const runs = await queue.enqueue('email', { to: 'y@example.com' });
    await queue.claim();
    const d = await startTestDashboard([queue]);
    const page = await browser.current.newPage({ viewport: { width: 1280, height: 1000 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    try {
      await openQueueView(page, d.url, queueName);
      await openJob(page, 'h-why-1');
      // The claims below met it and set it aside: its kind is paused.
      expect(await codes(page)).toEqual(['kind-paused', 'group-cap-full', 'parked', 'no-live-worker']);
      expect(await line(page, 'parked')).toContain(`kind ${SCRIPT} is paused or limited`);
      expect(await line(page, 'kind-paused')).toContain(`kind ${SCRIPT} is paused`);
      expect(await line(page, 'group-cap-full')).toContain(`group ${IMG} may run 1 at a time, and its slots are held by ${SCRIPT}`);
      expect(await line(page, 'no-live-worker')).toContain(`kind ${SCRIPT}`);
      await openJob(page, failing);
      expect(await line(page, 'failed')).toContain(`SMTP 552 ${IMG}`);
      await openJob(page, runs);
      expect(await line(page, 'running')).toContain(`worker ${hostileWorker}`);
      expect(await page.locator('#job img, #job script').count()).toBe(0);
      expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(pageErrors).toEqual([]);
    } finally {
      await page.close();
      await d.close();
    }
  }, 120_000);
});
