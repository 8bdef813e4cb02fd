import { request } from 'node:http';
import { defineKinds, JobQueue, type RedisClient } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createDashboard, isJobsError, jobQueueSource, type DashboardDataSource } from '../src/index.ts';
import { startTestDashboard, TOKENS, type TestDashboard } from './dashboard-client.ts';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { to: { type: 'string' } } } } });

function openQueue(redis: RedisClient, queueName: string) {
  return new JobQueue({ redis, queue: queueName, kinds });
}

type Queue = ReturnType<typeof openQueue>;

/** Enqueues a job and lets it fail on its only attempt: a dead letter. */
async function deadLetter(queue: Queue, to: string): Promise<string> {
  const id = await queue.enqueue('email', { to }, { maxAttempts: 1 });
  const [job] = await queue.claim();
  if (!job || job.id !== id) throw new Error('expected to claim the job just enqueued');
  expect(await queue.fail(job, new Error(`mailbox ${to} is full`))).toBe('failed');
  return id;
}

async function withDashboard(queue: Queue, run: (d: TestDashboard) => Promise<void>, credentials = { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer }): Promise<void> {
  const d = await startTestDashboard([queue], { credentials });
  try {
    await run(d);
  } finally {
    await d.close();
  }
}

/** A raw GET with the Host header chosen by the test (fetch sets its own). */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(new URL('api/session', url), { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the dashboard API: safe by default', () => {
  test('refuses an address other machines reach when it has no credentials, and tokens that are short or shared', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const open = createDashboard({ queues: [queue] });
    const refused = await open.listen({ port: 0, host: '0.0.0.0' }).catch((error: unknown) => error);
    expect(isJobsError(refused, 'JOBS_INVALID_ARGUMENT')).toBe(true);
    expect((refused as Error).message).toMatch(/loopback only; set JOBS_DASHBOARD_TOKEN/);
    expect(() => createDashboard({ queues: [queue], credentials: { operatorToken: 'short' } })).toThrow(/at least 16 characters/);
    expect(() => createDashboard({ queues: [queue], credentials: { operatorToken: TOKENS.operator, viewerToken: TOKENS.operator } })).toThrow(/must differ/);
    const withToken = createDashboard({ queues: [queue], credentials: { operatorToken: TOKENS.operator } });
    const server = await withToken.listen({ port: 0, host: '0.0.0.0' });
    expect(server.port).toBeGreaterThan(0);
    await withToken.close();
  });

  test('a wrong token gets the login page again with 401; the operator token gets an HttpOnly SameSite=Strict session', async ({ redis, queueName }) => {
    await withDashboard(openQueue(redis, queueName), async (d) => {
      expect((await d.call('GET', 'api/overview')).status).toBe(401);
      const page = await d.call('GET', '');
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/login');
      const wrong = await fetch(new URL('login', d.url), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: d.url.slice(0, -1) }, body: 'token=nope', redirect: 'manual' });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('set-cookie')).toBeNull();
      expect(await wrong.text()).toContain('<p id="login-error">That token opens nothing here.');
      const right = await fetch(new URL('login', d.url), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: d.url.slice(0, -1) }, body: `token=${TOKENS.operator}`, redirect: 'manual' });
      expect(right.status).toBe(303);
      expect(right.headers.get('set-cookie')).toMatch(/^jobs_dashboard_session=[\w-]{40,}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
      const session = await d.login(TOKENS.operator);
      expect(session.role).toBe('operator');
      expect((await d.call('GET', 'api/overview', { session })).status).toBe(200);
    });
  });

  test('every answer carries a CSP with no inline script or style, nosniff and no framing', async ({ redis, queueName }) => {
    await withDashboard(openQueue(redis, queueName), async (d) => {
      for (const path of ['login', 'assets/app.js', 'assets/style.css', 'api/overview', 'nope']) {
        const { headers } = await d.call('GET', path);
        const csp = headers.get('content-security-policy') ?? '';
        expect(csp, path).toContain("default-src 'self'");
        expect(csp, path).toContain("frame-ancestors 'none'");
        expect(csp, path).not.toContain('unsafe-inline');
        expect(headers.get('x-content-type-options'), path).toBe('nosniff');
      }
      expect((await d.call('GET', 'assets/app.js')).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    });
  });

  test('an action without the CSRF token, or from another Origin, or with none, is refused and changes nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await deadLetter(queue, 'a@example.com');
    await withDashboard(queue, async (d) => {
      const session = await d.login(TOKENS.operator);
      const path = `api/queues/${queueName}/jobs/${id}/retry`;
      const noCsrf = await d.call('POST', path, { session, csrf: null });
      expect(noCsrf.status).toBe(403);
      expect(noCsrf.body.error.code).toBe('csrf');
      expect((await d.call('POST', path, { session, csrf: 'forged-token' })).status).toBe(403);
      const foreign = await d.call('POST', path, { session, origin: 'http://evil.example' });
      expect(foreign.status).toBe(403);
      expect(foreign.body.error.message).toMatch(/comes from http:\/\/evil\.example/);
      expect((await d.call('POST', path, { session, origin: null })).body.error.message).toMatch(/no Origin or Referer/);
      const foreignLogin = await fetch(new URL('login', d.url), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' }, body: `token=${TOKENS.operator}`, redirect: 'manual' });
      expect(foreignLogin.status).toBe(403);
      expect((await queue.getJob(id))?.status).toBe('failed');
      expect((await d.call('POST', path, { session })).status).toBe(200);
      expect((await queue.getJob(id))?.status).toBe('pending');
    });
  });

  test('a viewer reads lists and jobs but every action answers 403', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await deadLetter(queue, 'v@example.com');
    await withDashboard(queue, async (d) => {
      const viewer = await d.login(TOKENS.viewer);
      expect(viewer.role).toBe('viewer');
      const list = await d.call('GET', `api/queues/${queueName}/jobs?state=failed`, { session: viewer });
      expect(list.body.jobs.map((job: { id: string }) => job.id)).toEqual([id]);
      expect((await d.call('GET', `api/queues/${queueName}/jobs/${id}`, { session: viewer })).body.job.lastError).toBe('mailbox v@example.com is full');
      for (const [path, body] of [[`jobs/${id}/retry`, {}], [`jobs/${id}/cancel`, {}], ['redrive-failed', { expected: 1 }], ['purge', { confirm: queueName }]] as const) {
        const answer = await d.call('POST', `api/queues/${queueName}/${path}`, { session: viewer, body });
        expect(answer.status, path).toBe(403);
        expect(answer.body.error.code).toBe('read_only');
      }
      expect((await queue.getJob(id))?.status).toBe('failed');
    });
  });

  test('without credentials it answers to loopback Host names only, so a DNS-rebound page cannot read it', async ({ redis, queueName }) => {
    const d = await startTestDashboard([openQueue(redis, queueName)]);
    try {
      expect(await getWithHost(d.url, `127.0.0.1:${d.server.port}`)).toBe(200);
      expect(await getWithHost(d.url, `localhost:${d.server.port}`)).toBe(200);
      expect(await getWithHost(d.url, `attacker.example:${d.server.port}`)).toBe(421);
    } finally {
      await d.close();
    }
  });
});

describe('the dashboard API: actions on jobs that changed meanwhile', () => {
  test('retrying a job that was redriven meanwhile answers 409 and redrives it once only', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await deadLetter(queue, 'b@example.com');
    await withDashboard(queue, async (d) => {
      const session = await d.login(TOKENS.operator);
      const path = `api/queues/${queueName}/jobs/${id}/retry`;
      const [first, second] = await Promise.all([d.call('POST', path, { session }), d.call('POST', path, { session })]);
      expect([first.status, second.status].sort()).toEqual([200, 409]);
      const conflict = first.status === 409 ? first : second;
      expect(conflict.body.error.message).toBe(`job ${id} is pending now, not failed: nothing was redriven (it was redriven or finished meanwhile)`);
      expect((await queue.stats()).redrivenTotal).toBe(1);
      expect((await queue.stats()).pendingDepth).toBe(1);
      // It runs and completes; a late retry from a stale page is refused the same way.
      const [job] = await queue.claim();
      await queue.complete(job!, { sent: true });
      const late = await d.call('POST', path, { session });
      expect(late.status).toBe(409);
      expect(late.body.error.message).toMatch(/is completed now, not failed/);
      expect((await queue.getJob(id))?.status).toBe('completed');
      expect((await d.call('POST', `api/queues/${queueName}/jobs/nosuchjob/retry`, { session })).status).toBe(404);
    });
  });

  test('cancelling a job a worker claimed meanwhile answers 409 and leaves it running', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { to: 'c@example.com' });
    await withDashboard(queue, async (d) => {
      const session = await d.login(TOKENS.operator);
      await queue.claim();
      const answer = await d.call('POST', `api/queues/${queueName}/jobs/${id}/cancel`, { session });
      expect(answer.status).toBe(409);
      expect(answer.body.error.message).toMatch(/is processing now: only a pending or delayed job can be cancelled/);
      expect((await queue.getJob(id))?.status).toBe('processing');
      const other = await queue.enqueue('email', { to: 'd@example.com' });
      expect((await d.call('POST', `api/queues/${queueName}/jobs/${other}/cancel`, { session })).status).toBe(200);
      expect((await queue.getJob(other))?.status).toBe('cancelled');
    });
  });

  test('redrive all failed moves the count the operator saw, not the jobs that failed since', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const seen = [await deadLetter(queue, '1@x.io'), await deadLetter(queue, '2@x.io')];
    await withDashboard(queue, async (d) => {
      const session = await d.login(TOKENS.operator);
      const later = await deadLetter(queue, '3@x.io');
      const answer = await d.call('POST', `api/queues/${queueName}/redrive-failed`, { session, body: { expected: 2 } });
      expect(answer.body).toMatchObject({ redriven: 2 });
      for (const id of seen) expect((await queue.getJob(id))?.status).toBe('pending');
      expect((await queue.getJob(later))?.status).toBe('failed');
      expect((await d.call('POST', `api/queues/${queueName}/redrive-failed`, { session, body: {} })).status).toBe(400);
    });
  });

  test('purge needs the queue name typed, and then deletes the queue', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { to: 'p@example.com' });
    await withDashboard(queue, async (d) => {
      const session = await d.login(TOKENS.operator);
      const wrong = await d.call('POST', `api/queues/${queueName}/purge`, { session, body: { confirm: 'other' } });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.message).toBe(`type the queue's name (${queueName}) to purge it`);
      expect((await queue.stats()).pendingDepth).toBe(1);
      const done = await d.call('POST', `api/queues/${queueName}/purge`, { session, body: { confirm: queueName } });
      expect(done.body.deletedKeys).toBeGreaterThan(0);
      expect((await queue.stats()).pendingDepth).toBe(0);
    });
  });
});

describe('the dashboard API: capabilities of the data source', () => {
  test('pause, resume, limits, timelines and schedules appear only when the source has them', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { to: 't@example.com' });
    const plain = await startTestDashboard([queue]);
    try {
      const session = await plain.call('GET', 'api/session');
      expect(session.body.capabilities).toEqual({ flowState: false, pause: false, timeline: false, schedules: false });
      expect((await plain.call('POST', `api/queues/${queueName}/pause`, { session: { cookie: session.headers.get('set-cookie')!.split(';')[0]!, csrfToken: session.body.csrfToken, role: 'operator' } })).status).toBe(404);
      expect((await plain.call('GET', `api/queues/${queueName}/jobs/${id}`)).body.timeline).toBeUndefined();
    } finally {
      await plain.close();
    }
    let paused = false;
    const source: DashboardDataSource = {
      ...jobQueueSource([queue]),
      flowState: async () => ({ paused, limits: { concurrency: 4 } }),
      pause: async () => void (paused = true),
      resume: async () => void (paused = false),
      timeline: async (_queue, jobId) => [{ atMs: 1, event: 'enqueued', detail: jobId }],
      schedules: async () => [{ name: 'nightly', every: '0 3 * * *', nextRunAtMs: 2 }],
    };
    const full = await startTestDashboard(undefined, { source });
    try {
      const first = await full.call('GET', 'api/session');
      const session = { cookie: first.headers.get('set-cookie')!.split(';')[0]!, csrfToken: first.body.csrfToken, role: 'operator' };
      expect(first.body.capabilities).toEqual({ flowState: true, pause: true, timeline: true, schedules: true });
      expect((await full.call('POST', `api/queues/${queueName}/pause`, { session })).body).toEqual({ queue: queueName, paused: true });
      expect((await full.call('GET', 'api/overview', { session })).body.queues[0].flow).toEqual({ paused: true, limits: { concurrency: 4 } });
      await full.call('POST', `api/queues/${queueName}/resume`, { session });
      expect(paused).toBe(false);
      expect((await full.call('GET', `api/queues/${queueName}/jobs/${id}`, { session })).body.timeline).toEqual([{ atMs: 1, event: 'enqueued', detail: id }]);
      expect((await full.call('GET', `api/queues/${queueName}/schedules`, { session })).body.schedules[0].name).toBe('nightly');
    } finally {
      await full.close();
    }
  });

  test('a job detail never shows the claim token, and bad queries get 400 with the reason', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { to: 'x@example.com' });
    await queue.claim();
    const d = await startTestDashboard([queue]);
    try {
      const detail = await d.call('GET', `api/queues/${queueName}/jobs/${id}`);
      expect(detail.body.job.status).toBe('processing');
      expect(detail.body.job.fields.claim_token).toBeUndefined();
      expect(JSON.stringify(detail.body)).not.toContain((await redis.hget(`queue:{${queueName}}:job:${id}`, 'claim_token')) as string);
      expect((await d.call('GET', `api/queues/${queueName}/jobs?state=nope`)).body.error.message).toMatch(/state must be one of/);
      expect((await d.call('GET', `api/queues/${queueName}/jobs?limit=5000`)).status).toBe(400);
      expect((await d.call('GET', `api/queues/${queueName}/jobs?field=a..b`)).status).toBe(400);
      expect((await d.call('GET', `api/queues/${queueName}/jobs/bad{id}`)).status).toBe(400);
      expect((await d.call('GET', 'api/queues/nosuchqueue/jobs')).status).toBe(404);
    } finally {
      await d.close();
    }
  });
});
