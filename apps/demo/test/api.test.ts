import { request as httpRequest } from 'node:http';
import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { parseDemoConfig } from '../src/config.ts';
import { startDemo } from './demo-server.ts';

const RECIPE_STATS = [
  'enqueued_total', 'completed_total', 'failed_total', 'reclaimed_total', 'pending_depth', 'processing_depth', 'completed_depth',
  'failed_depth', 'visibility_ms', 'workers_running', 'worker_processed_total', 'work_latency_ms', 'fail_rate', 'hang_rate',
];

type Stats = Record<string, unknown>;

describe('demo HTTP API', () => {
  test('GET / serves the page with the visibility timeout in its text, and strict security headers', async ({ redisUrl, queueName }) => {
    const demo = await startDemo(redisUrl, queueName, 1_234);
    const response = await fetch(`${demo.base}/`);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(html).toContain('<strong>1234 ms</strong>');
    expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await fetch(`${demo.base}/app.js`)).headers.get('content-type')).toMatch(/javascript/);
    await demo.close();
  });

  test('GET /stats has every field of the recipe demo, and ours', async ({ redisUrl, queueName }) => {
    const demo = await startDemo(redisUrl, queueName);
    const { status, body } = await demo.call('GET', '/stats');
    expect(status).toBe(200);
    for (const key of RECIPE_STATS) expect(body, key).toHaveProperty(key);
    expect(body).toMatchObject({ visibility_ms: 1_000, workers_running: 0, delayed_depth: 0, auto_reclaim: false, queue_name: queueName });
    await demo.close();
  });

  test('POST /enqueue takes the recipe form (kind, recipient, count) and answers { enqueued, stats }', async ({ redisUrl, queueName }) => {
    const demo = await startDemo(redisUrl, queueName);
    const one = await demo.call('POST', '/enqueue', {});
    expect(one.status).toBe(200);
    expect(one.body.enqueued).toHaveLength(1);
    const many = await demo.call('POST', '/enqueue', { kind: 'invoice', recipient: 'ops@example.com', count: '100' });
    expect(many.body.enqueued).toHaveLength(50);
    expect(many.body.stats).toMatchObject({ enqueued_total: 51, pending_depth: 51 });
    const jobs = await demo.call('GET', '/jobs');
    const pending = jobs.body.pending as { payload: Record<string, unknown> }[];
    expect(pending[0]).toEqual({
      id: (one.body.enqueued as string[])[0],
      status: 'pending',
      kind: 'email',
      attempts: 0,
      payload: expect.objectContaining({ kind: 'email', recipient: 'user@example.com', n: 1 }),
      result: null,
      last_error: null,
      priority: 0,
    });
    expect(pending[1]?.payload).toMatchObject({ kind: 'invoice', recipient: 'ops@example.com', n: 1, currency: 'EUR' });
    expect(Object.keys(jobs.body).sort()).toEqual(['completed', 'delayed', 'failed', 'pending', 'processing']);
    await demo.close();
  });

  test('bad input is refused with 400 and a JSON error, and nothing is written', async ({ redisUrl, queueName }) => {
    const demo = await startDemo(redisUrl, queueName);
    const cases: [string, Record<string, string>, RegExp][] = [
      ['/enqueue', { kind: 'fax' }, /unknown kind "fax"/],
      ['/enqueue', { count: 'lots' }, /count must be a whole number/],
      ['/enqueue', { recipient: 'not-an-address' }, /recipient must match format "email"/],
      ['/enqueue', { recipient: 'x'.repeat(300) }, /recipient must be at most 254 characters/],
      ['/enqueue', { priority: 'urgent' }, /priority must be one of low, normal, high/],
      ['/enqueue', { priority: '10' }, /priority must be one of low, normal, high/],
      ['/enqueue/custom', { kind: 'email', payload: '{"recipient":"a@example.com"}', priority: 'toString' }, /priority must be one of/],
      ['/enqueue/custom', { kind: 'email', payload: '{"recipient": 5}' }, /\/recipient must be string/],
      ['/enqueue/custom', { kind: 'email', payload: '{oops' }, /payload is not JSON/],
      ['/enqueue/custom', { kind: 'nope', payload: '{}' }, /unknown kind/],
      ['/enqueue/custom', { kind: 'email', payload: '{"recipient":"a@example.com"}', delay_ms: '-5x' }, /delay_ms must be a whole number/],
      ['/workers/start', { size: 'two' }, /size must be a whole number/],
      ['/workers/configure', { fail_rate: 'often' }, /fail_rate must be a number/],
      ['/reclaim/auto', { enabled: 'maybe' }, /enabled must be true or false/],
    ];
    for (const [path, body, message] of cases) {
      const response = await demo.call('POST', path, body);
      expect(response.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(String(response.body.error)).toMatch(message);
    }
    const refused = await demo.call('POST', '/enqueue/custom', { kind: 'webhook', payload: '{"url": "ftp://x", "extra": 1}' });
    const pointers = (refused.body.issues as { pointer: string }[]).map((issue) => issue.pointer);
    expect(new Set(pointers)).toEqual(new Set(['/event', '/extra', '/url']));
    expect((await demo.call('GET', '/stats')).body).toMatchObject({ enqueued_total: 0, workers_running: 0, auto_reclaim: false });
    await demo.close();
  });

  test('state-changing requests from other sites are refused; wrong methods, paths and bodies get their status', async ({ redisUrl, queueName }) => {
    const demo = await startDemo(redisUrl, queueName);
    expect((await demo.call('POST', '/reset', {}, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await demo.call('POST', '/reset', {}, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await demo.call('POST', '/queue/pause', {}, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await demo.call('POST', '/queue/pause', {}, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await demo.call('GET', '/stats')).body.paused).toBe(false);
    // DNS rebinding: a page on another name that resolves to 127.0.0.1 (fetch cannot set Host).
    const rebound = await new Promise<number>((resolve, reject) => {
      const url = new URL(demo.base);
      const request = httpRequest({ host: url.hostname, port: url.port, path: '/enqueue', method: 'POST', headers: { host: `rebound.example:${url.port}`, 'content-type': 'application/x-www-form-urlencoded' } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end('count=1');
    });
    expect(rebound).toBe(403);
    expect((await demo.call('POST', '/enqueue', {}, { origin: demo.base, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    const plain = await fetch(`${demo.base}/enqueue`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'count=3' });
    expect(plain.status).toBe(415);
    const huge = await fetch(`${demo.base}/enqueue/custom`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'email', payload: 'x'.repeat(70_000) }),
    });
    expect(huge.status).toBe(413);
    expect((await demo.call('GET', '/reset')).status).toBe(405);
    expect((await demo.call('POST', '/stats', {})).status).toBe(405);
    expect((await demo.call('GET', '/nowhere')).status).toBe(404);
    expect((await demo.call('GET', '/stats')).body.enqueued_total).toBe(1);
    await demo.close();
  });

  test('workers start, apply new settings, process jobs and stop; retry and job details work', async ({ redisUrl, queueName }) => {
    const demo = await startDemo(redisUrl, queueName);
    const stats = async (): Promise<Stats> => (await demo.call('GET', '/stats')).body;
    await demo.call('POST', '/enqueue', { count: '6' });
    const started = await demo.call('POST', '/workers/start', { size: '2', work_latency_ms: '20' });
    expect(started.body).toMatchObject({ worker_pool_size: 2, work_latency_ms: 20, fail_rate: 0, hang_rate: 0 });
    await waitFor(async () => (await stats()).completed_total === 6, { timeoutMs: 20_000 });
    expect((await stats()).workers_running).toBe(2);
    // Every attempt fails now; invoices allow two attempts, then the job is dead-lettered.
    const configured = await demo.call('POST', '/workers/configure', { fail_rate: '1' });
    expect(configured.body).toMatchObject({ fail_rate: 1, work_latency_ms: 20 });
    const { body: enqueued } = await demo.call('POST', '/enqueue', { kind: 'invoice', count: '1' });
    const failedId = (enqueued.enqueued as string[])[0] as string;
    await waitFor(async () => (await stats()).failed_total === 1, { timeoutMs: 30_000 });
    const detail = await demo.call('GET', `/jobs/${failedId}`);
    expect(detail.body.job).toMatchObject({ id: failedId, status: 'failed', last_error: expect.stringMatching(/simulated failure/), fields: expect.objectContaining({ attempts: '2', kind: 'invoice' }) });
    expect((await demo.call('GET', '/jobs/ffffffffffffffff')).status).toBe(404);
    expect((await demo.call('GET', '/jobs/bad%20id')).status).toBe(400);
    await demo.call('POST', '/workers/configure', { fail_rate: '0' });
    expect((await demo.call('POST', `/jobs/${failedId}/retry`, {})).body).toMatchObject({ retried: failedId });
    await waitFor(async () => ((await demo.call('GET', `/jobs/${failedId}`)).body.job as { status: string }).status === 'completed', { timeoutMs: 20_000 });
    expect((await demo.call('POST', `/jobs/${failedId}/retry`, {})).status).toBe(409);
    expect((await demo.call('POST', '/workers/stop', {})).body).toMatchObject({ workers_running: 0, worker_pool_size: 0 });
    expect((await demo.call('POST', '/reclaim', {})).body).toMatchObject({ reclaimed: [], stats: expect.objectContaining({ reclaimed_total: 0 }) });
    expect((await demo.call('POST', '/reclaim/auto', { enabled: 'true' })).body.auto_reclaim).toBe(true);
    expect((await demo.call('POST', '/reclaim/auto', { enabled: 'false' })).body.auto_reclaim).toBe(false);
    expect((await demo.call('POST', '/reset', {})).body.stats).toMatchObject({ enqueued_total: 0, completed_total: 0, pending_depth: 0 });
    await demo.close();
  });

  test('a high-priority job starts before the normal ones waiting; a paused queue starts nothing, and resumed, works on', async ({ redisUrl, queueName }) => {
    const demo = await startDemo(redisUrl, queueName);
    const stats = async (): Promise<Stats> => (await demo.call('GET', '/stats')).body;
    expect((await demo.call('POST', '/queue/pause', {})).body).toMatchObject({ paused: true });
    const normal = (await demo.call('POST', '/enqueue', { count: '4' })).body.enqueued as string[];
    const low = (await demo.call('POST', '/enqueue', { count: '1', priority: 'low' })).body.enqueued as string[];
    const high = (await demo.call('POST', '/enqueue', { kind: 'webhook', count: '1', priority: 'high' })).body.enqueued as string[];
    const custom = await demo.call('POST', '/enqueue/custom', { kind: 'email', payload: '{"recipient":"vip@example.com"}', priority: 'high' });
    expect(await stats()).toMatchObject({ paused: true, pending_depth: 4, prioritized_depth: 3, enqueued_total: 7 });
    expect(((await demo.call('GET', `/jobs/${high[0]}`)).body.job as { priority: number }).priority).toBe(10);
    await demo.call('POST', '/workers/start', { size: '1', work_latency_ms: '10' });
    await waitFor(async () => (await stats()).workers_running === 1, { timeoutMs: 20_000 });
    // The worker is up and waiting: over a second of Redis time it starts nothing.
    const since = Number((await stats()).server_time_ms);
    await waitFor(async () => Number((await stats()).server_time_ms) > since + 1_000, { timeoutMs: 10_000 });
    expect(await stats()).toMatchObject({ processing_depth: 0, completed_total: 0, pending_depth: 4 });
    expect((await demo.call('POST', '/queue/resume', {})).body).toMatchObject({ paused: false });
    await waitFor(async () => (await stats()).completed_total === 7, { timeoutMs: 20_000 });
    // One worker, one job at a time: the order they were claimed in is the order they started.
    const all = [...high, custom.body.id as string, ...normal, ...low];
    const claimedAt = await Promise.all(all.map(async (id) => Number(((await demo.call('GET', `/jobs/${id}`)).body.job as { fields: Record<string, string> }).fields.claimed_at_ms)));
    const startOrder = all.map((id, i) => ({ id, at: claimedAt[i] as number })).sort((a, b) => a.at - b.at).map((job) => job.id);
    // Highest first, first in first out within a priority.
    expect(startOrder).toEqual(all);
    await demo.close();
  });

  test('a hang crashes the worker holding the job; the supervisor replaces it; a reclaim sweep returns the job', async ({ redisUrl, queueName }) => {
    const demo = await startDemo(redisUrl, queueName, 500);
    const stats = async (): Promise<Stats> => (await demo.call('GET', '/stats')).body;
    await demo.call('POST', '/workers/start', { size: '1', work_latency_ms: '10', hang_rate: '1' });
    await demo.call('POST', '/enqueue', { count: '1' });
    await waitFor(async () => Number((await stats()).worker_crashes_total) >= 1, { timeoutMs: 20_000 });
    expect(await stats()).toMatchObject({ processing_depth: 1, completed_total: 0 });
    await demo.call('POST', '/workers/configure', { hang_rate: '0' });
    const swept = await waitFor(async () => {
      const { body } = await demo.call('POST', '/reclaim', {});
      return (body.reclaimed as string[]).length > 0 ? body : undefined;
    }, { timeoutMs: 20_000, intervalMs: 100 });
    expect(swept.reclaimed).toHaveLength(1);
    await waitFor(async () => (await stats()).completed_total === 1, { timeoutMs: 20_000 });
    expect((await stats()).workers_running).toBe(1);
    await demo.close();
  });
});

describe('demo configuration', () => {
  test("flags win over the environment; the recipe demos' flags and variables work", () => {
    expect(parseDemoConfig([], {})).toEqual({ help: false, port: 8794, host: '127.0.0.1', redisUrl: undefined, visibilityMs: 5_000, queueName: 'jobs' });
    expect(parseDemoConfig(['--redis-host', 'cache', '--redis-port', '6380'], {}).redisUrl).toBe('redis://cache:6380');
    expect(parseDemoConfig([], { REDIS_HOST: 'cache', REDIS_PORT: '6381', VISIBILITY_MS: '9000' })).toMatchObject({ redisUrl: 'redis://cache:6381', visibilityMs: 9_000 });
    expect(parseDemoConfig(['--redis-url', 'redis://a:1'], { REDIS_URL: 'redis://b:2' }).redisUrl).toBe('redis://a:1');
    expect(parseDemoConfig(['--port', '0', '--queue-name', 'demo-2', '--visibility-ms', '700'], {})).toMatchObject({ port: 0, queueName: 'demo-2', visibilityMs: 700 });
    for (const args of [['--port', 'http'], ['--visibility-ms', '5'], ['--queue-name', 'a*b'], ['--redis-url', 'tcp://x'], ['--what']]) {
      expect(() => parseDemoConfig(args, {}), args.join(' ')).toThrow();
    }
  });
});
