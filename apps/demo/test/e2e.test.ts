import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromiumLaunchOptions, waitFor } from '@jobs/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const SCREENSHOT = fileURLToPath(new URL('../test-results/demo.png', import.meta.url));

/** The demo as a newcomer starts it: no Redis given, so it runs its own. */
function startServer(): { url: Promise<string>; output: () => string; stop: () => Promise<number | null> } {
  const env = { ...process.env };
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [MAIN, '--port', '0', '--visibility-ms', '1000'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    // The banner's last line says it is all set up.
    url: waitFor(() => (out.includes('Visibility timeout:') ? /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] : undefined), {
      timeoutMs: 20_000,
      what: `the demo to listen (output: ${out})`,
    }),
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

async function stat(page: Page, name: string): Promise<number> {
  const text = await page.locator(`#stats [data-stat="${name}"] dd`).textContent();
  return Number(text);
}

/** The Redis clock, as the demo's /stats reads it. */
async function serverTime(page: Page): Promise<number> {
  return page.evaluate(async () => Number(((await (await fetch('/stats')).json()) as { server_time_ms: number }).server_time_ms));
}

/** Lets over a second of Redis time pass while the page keeps polling, so that a worker that would start a job has had every chance to. */
async function aSecondPasses(page: Page): Promise<void> {
  const since = await serverTime(page);
  await expect.poll(() => serverTime(page), { timeout: 10_000 }).toBeGreaterThan(since + 1_000);
}

describe('the demo page in a real browser', () => {
  let browser: Browser;
  let server: ReturnType<typeof startServer>;

  beforeAll(async () => {
    const launchOptions = chromiumLaunchOptions();
    server = startServer();
    browser = await chromium.launch(launchOptions);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (server) {
      expect(await server.stop()).toBe(0);
      expect(server.output()).toMatch(/stopped the private redis-server/);
    }
  });

  test('enqueue, work, hang, reclaim, refuse a bad payload, show hostile text as text', async () => {
    const url = await server.url;
    expect(server.output()).toMatch(/Using Redis at redis:\/\/127\.0\.0\.1:\d+ \(a private redis-server/);
    expect(server.output()).toMatch(/Visibility timeout: 1000 ms/);
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(url);
    await expect.poll(() => page.locator('header').textContent()).toContain('1000 ms');

    // A batch of 20, then a pool of 4 workers works it off.
    await page.fill('#count', '20');
    await page.click('#enqueue-btn');
    await expect.poll(() => page.locator('#status').textContent()).toBe('enqueued 20 job(s)');
    await expect.poll(() => stat(page, 'pending_depth')).toBe(20);
    await page.fill('#workers-size', '4');
    await page.fill('#latency', '50');
    await page.click('#start-btn');
    await expect.poll(() => stat(page, 'workers_running'), { timeout: 20_000 }).toBe(4);
    await expect.poll(() => stat(page, 'completed_total'), { timeout: 30_000 }).toBe(20);
    await expect.poll(() => page.locator('#list-completed li').count()).toBe(10);

    // Every job now crashes its worker: the jobs stay in processing, their leases unrenewed.
    await page.fill('#hang-rate', '1');
    await page.click('#start-btn');
    await page.fill('#count', '3');
    await page.click('#enqueue-btn');
    await expect.poll(() => stat(page, 'processing_depth'), { timeout: 30_000 }).toBe(3);
    await expect.poll(() => page.locator('#list-processing li').count()).toBe(3);
    await expect.poll(() => stat(page, 'worker_crashes_total'), { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
    await page.locator('#list-processing li').first().click();
    await expect.poll(() => page.locator('#job-detail').textContent()).toContain('claim_token');

    // Healthy workers again; a reclaim sweep (once the leases expire) brings the jobs back.
    await page.fill('#hang-rate', '0');
    await page.click('#start-btn');
    // Click the sweep button until the leases have expired and the three jobs come back.
    await expect
      .poll(async () => {
        await page.click('#reclaim-btn');
        return stat(page, 'reclaimed_total');
      }, { timeout: 30_000, interval: 500 })
      .toBe(3);
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/^reclaim sweep returned \d+ job\(s\) to pending$/);
    await expect.poll(() => stat(page, 'completed_total'), { timeout: 30_000 }).toBe(23);
    expect(await stat(page, 'processing_depth')).toBe(0);

    // A payload that breaks its schema: the errors are shown, nothing is enqueued.
    await page.click('#custom summary');
    await page.selectOption('#custom-kind', 'webhook');
    await page.fill('#custom-payload', '{"url": "not a url", "event": ""}');
    await page.click('#custom-submit');
    await expect.poll(() => page.locator('#custom-errors').isVisible()).toBe(true);
    const errors = await page.locator('#custom-errors').textContent();
    expect(errors).toContain('/url');
    expect(errors).toContain('/event');
    expect(await stat(page, 'enqueued_total')).toBe(23);

    // Hostile text is shown as text, never run.
    const hostile = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
    await page.selectOption('#custom-kind', 'email');
    await page.fill('#custom-payload', JSON.stringify({ recipient: 'eve@example.com', subject: hostile }));
    await page.click('#custom-submit');
    await expect.poll(() => page.locator('#status').textContent()).toMatch(/^enqueued \w+/);
    await expect.poll(() => page.locator('#list-completed').textContent(), { timeout: 20_000 }).toContain('<script>window.__pwned=2</script>');
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('#list-completed img').count()).toBe(0);

    await expect.poll(() => page.locator('#chart').isVisible()).toBe(true);
    mkdirSync(fileURLToPath(new URL('../test-results/', import.meta.url)), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 180_000);

  test('a high-priority job starts before the jobs already waiting; paused, nothing starts; resumed, the work goes on', async () => {
    const url = await server.url;
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(url);
    await page.click('#reset-btn');
    await expect.poll(() => page.locator('#status').textContent()).toBe('queue reset');
    await expect.poll(() => stat(page, 'enqueued_total')).toBe(0);
    await expect.poll(() => page.locator('#pause-state').textContent()).toBe('running');

    // Paused, with one worker up and jobs waiting: nothing starts.
    await page.click('#pause-btn');
    await expect.poll(() => page.locator('#pause-state').textContent()).toBe('paused');
    expect(await page.locator('#status').textContent()).toBe('queue paused: workers start no new job');
    expect(await page.locator('#pause-btn').textContent()).toBe('Resume queue');
    await page.fill('#workers-size', '1');
    await page.fill('#latency', '100');
    await page.fill('#fail-rate', '0');
    await page.fill('#hang-rate', '0');
    await page.click('#start-btn');
    await expect.poll(() => stat(page, 'workers_running'), { timeout: 20_000 }).toBe(1);
    await page.fill('#count', '5');
    await page.click('#enqueue-btn');
    await expect.poll(() => page.locator('#status').textContent()).toBe('enqueued 5 job(s)');
    await page.selectOption('#kind', 'webhook');
    await page.selectOption('#priority', 'high');
    await page.fill('#count', '1');
    await page.click('#enqueue-btn');
    await expect.poll(() => stat(page, 'prioritized_depth')).toBe(1);
    expect(await stat(page, 'pending_depth')).toBe(5);
    expect(await page.locator('#count-elsewhere').textContent()).toBe('+ 1 waiting at other priorities (started in priority order)');
    await aSecondPasses(page);
    expect(await stat(page, 'processing_depth')).toBe(0);
    expect(await stat(page, 'completed_total')).toBe(0);
    await page.screenshot({ path: fileURLToPath(new URL('../test-results/demo-paused.png', import.meta.url)), fullPage: true });

    // Resumed: the high-priority job, enqueued last, starts first (one worker runs one job at a time).
    await page.click('#pause-btn');
    await expect.poll(() => page.locator('#pause-state').textContent()).toBe('running');
    await expect.poll(() => stat(page, 'completed_total'), { timeout: 30_000 }).toBe(6);
    const completed = page.locator('#list-completed li');
    await expect.poll(() => completed.count()).toBe(6);
    // Newest first: the last row is the job that finished (and so started) first.
    expect(await completed.last().locator('.kind').textContent()).toBe('webhook');
    expect(await completed.last().locator('[data-priority]').textContent()).toBe('high +10');
    expect(await page.locator('#list-completed [data-priority]').count()).toBe(1);

    // Paused while working: the running job finishes, then nothing more starts until resumed.
    await page.fill('#latency', '250');
    await page.click('#start-btn');
    await page.selectOption('#kind', 'email');
    await page.selectOption('#priority', 'normal');
    await page.fill('#count', '12');
    await page.click('#enqueue-btn');
    await expect.poll(() => stat(page, 'completed_total'), { timeout: 30_000 }).toBeGreaterThan(6);
    await page.click('#pause-btn');
    await expect.poll(() => page.locator('#pause-state').textContent()).toBe('paused');
    await expect.poll(() => stat(page, 'processing_depth'), { timeout: 10_000 }).toBe(0);
    const done = await stat(page, 'completed_total');
    expect(done).toBeLessThan(18);
    await aSecondPasses(page);
    expect(await stat(page, 'completed_total')).toBe(done);
    expect(await stat(page, 'pending_depth')).toBe(18 - done);
    await page.click('#pause-btn');
    await expect.poll(() => stat(page, 'completed_total'), { timeout: 30_000 }).toBe(18);
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 180_000);
});
