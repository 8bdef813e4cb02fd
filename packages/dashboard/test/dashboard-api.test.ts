import { request } from 'node:http';
import { defineKinds, isJobsError, Queue, type RedisClient } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { capabilitiesOf, createDashboard, jobQueueSource, type DashboardDataSource } from '../src/index.ts';
import { namedQueues } from '../src/job-queue-source.ts';
import { startTestDashboard, TOKENS, type TestDashboard } from './dashboard-client.ts';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { to: { type: 'string' } } } } });

function openQueue(redis: RedisClient, queueName: string) {
  return new Queue({ redis, queue: queueName, kinds });
}

type TestQueue = ReturnType<typeof openQueue>;

/** Enqueues a job and lets it fail on its only attempt: a dead letter. */
async function deadLetter(queue: TestQueue, to: string): Promise<string> {
  const id = await queue.enqueue('email', { to }, { maxAttempts: 1 });
  const [job] = await queue.claim();
  if (!job || job.id !== id) throw new Error('expected to claim the job just enqueued');
  expect(await queue.fail(job, new Error(`mailbox ${to} is full`))).toBe('failed');
  return id;
}

async function withDashboard(queue: TestQueue, run: (d: TestDashboard) => Promise<void>, credentials = { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer }): Promise<void> {
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
      expect(right.headers.get('set-cookie')).toMatch(/^jobs_dashboard_session=[\w.-]{40,}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
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

  test('cancelling a job a worker claimed meanwhile cancels it (its claim void); one that finished meanwhile answers 409', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { to: 'c@example.com' });
    await withDashboard(queue, async (d) => {
      const session = await d.login(TOKENS.operator);
      const [job] = await queue.claim();
      expect((await d.call('POST', `api/queues/${queueName}/jobs/${id}/cancel`, { session })).status).toBe(200);
      expect((await queue.getJob(id))?.status).toBe('cancelled');
      expect(await queue.completeSettled([{ job: job as NonNullable<typeof job>, result: 1 }])).toEqual([{ status: 'cancelled' }]);
      const other = await queue.enqueue('email', { to: 'd@example.com' });
      const [claimed] = await queue.claim();
      await queue.complete(claimed as NonNullable<typeof claimed>, 'sent');
      const answer = await d.call('POST', `api/queues/${queueName}/jobs/${other}/cancel`, { session });
      expect(answer.status).toBe(409);
      expect(answer.body.error.message).toMatch(/is completed now: only a job that has not finished can be cancelled/);
      expect((await queue.getJob(other))?.status).toBe('completed');
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

/** The members every data source has: none of the optional capabilities. */
function requiredMembers(source: DashboardDataSource): DashboardDataSource {
  const { queueNames, stats, list, getJob, retry, retryFailed, cancel, purge } = source;
  return { queueNames, stats, list, getJob, retry, retryFailed, cancel, purge };
}

/** Every capability flag the dashboard knows, true for those in `on` only. */
function capabilityFlags(...on: string[]): Record<string, boolean> {
  return Object.fromEntries(Object.keys(capabilitiesOf(requiredMembers(jobQueueSource([])))).map((key) => [key, on.includes(key)]));
}

describe('the dashboard API: capabilities of the data source', () => {
  test('pause, resume, limits, timelines, schedules and live workers appear only when the source has them', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { to: 't@example.com' });
    // A source with only the required members: no capability shows.
    const required = requiredMembers(jobQueueSource([queue]));
    const bare = await startTestDashboard(undefined, { source: required });
    try {
      const session = await bare.call('GET', 'api/session');
      expect(session.body.capabilities).toEqual(capabilityFlags());
      expect((await bare.call('POST', `api/queues/${queueName}/pause`, { session: { cookie: session.headers.get('set-cookie')!.split(';')[0]!, csrfToken: session.body.csrfToken, role: 'operator' } })).status).toBe(404);
      expect((await bare.call('GET', `api/queues/${queueName}/schedules`)).status).toBe(404);
      const operator = { cookie: session.headers.get('set-cookie')!.split(';')[0]!, csrfToken: session.body.csrfToken, role: 'operator' };
      expect((await bare.call('POST', `api/queues/${queueName}/jobs/${id}/delete`, { session: operator })).body.error.code).toBe('no_capability');
      expect((await bare.call('POST', `api/queues/${queueName}/bulk`, { session: operator, body: { action: 'promote', ids: [id], expected: 1 } })).body.error.code).toBe('no_capability');
      expect((await bare.call('GET', `api/queues/${queueName}/workers`)).body.error.code).toBe('no_capability');
      expect((await bare.call('GET', `api/queues/${queueName}/batches`)).body.error.code).toBe('no_capability');
      expect((await bare.call('GET', `api/queues/${queueName}/jobs/${id}/children`)).body.error.code).toBe('no_capability');
      expect((await bare.call('GET', 'api/overview')).body.queues[0].flow).toBeUndefined();
      expect((await bare.call('GET', 'api/overview')).body.queues[0].liveWorkers).toBeUndefined();
      expect((await bare.call('GET', `api/queues/${queueName}/jobs/${id}`)).body.timeline).toBeUndefined();
    } finally {
      await bare.close();
    }
    // JobQueues have admission state, pause, schedules and timelines (shown when the queue keeps an event log).
    const real = await startTestDashboard([queue]);
    try {
      expect((await real.call('GET', 'api/session')).body.capabilities).toEqual(
        capabilityFlags('attempts', 'audit', 'batches', 'changePriority', 'children', 'flowState', 'history', 'logs', 'pause', 'promote', 'remove', 'timeline', 'schedules', 'workers', 'workerOrders'),
      );
      expect((await real.call('GET', 'api/overview')).body.queues[0].liveWorkers).toBe(0);
    } finally {
      await real.close();
    }
    const source: DashboardDataSource = {
      ...required,
      flowState: async () => ({ paused: false, limits: { concurrency: 4 } }),
      timeline: async (_queue, jobId) => [{ atMs: 1, event: 'enqueued', detail: jobId }],
    };
    const custom = await startTestDashboard(undefined, { source });
    try {
      const first = await custom.call('GET', 'api/session');
      expect(first.body.capabilities).toEqual(capabilityFlags('flowState', 'timeline'));
      expect((await custom.call('GET', 'api/overview')).body.queues[0].flow).toEqual({ paused: false, limits: { concurrency: 4 } });
      expect((await custom.call('GET', `api/queues/${queueName}/jobs/${id}`)).body.timeline).toEqual([{ atMs: 1, event: 'enqueued', detail: id }]);
    } finally {
      await custom.close();
    }
  });

  test("a queue's rate limits, caps and pushbacks show on its card without an option, for the daemon's queues by name too", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const daemonQueues = namedQueues(redis, () => [queueName]);
    const named = await startTestDashboard(undefined, { source: jobQueueSource(daemonQueues) });
    try {
      expect((await named.call('GET', 'api/overview')).body.queues[0].flow.limits).toBeUndefined();
      await queue.setLimits({ rate: { max: 100, windowMs: 1000, spread: true }, concurrency: 10, kinds: { email: { concurrency: 2 } }, groups: { rate: { max: 5, windowMs: 60_000 } } });
      expect((await named.call('GET', 'api/overview')).body.queues[0].flow.limits).toEqual({
        rate: '100 / 1000 ms, spread, burst 2',
        concurrency: 10,
        'email concurrency': 2,
        'groups rate': '5 / 60000 ms',
      });
      await queue.enqueue('email', { to: 'a@example.com' });
      const [job] = await queue.claim();
      const until = await queue.rateLimited(job!, 60_000, 'provider says slow down');
      expect((await named.call('GET', 'api/overview')).body.queues[0].flow.limits['email held until']).toBe(new Date(until).toISOString());
    } finally {
      await named.close();
      for (const open of daemonQueues()) await open.close();
    }
  });

  test("a job's timeline comes from its queue's event log: attempt, worker and error code per event", async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, eventLog: true, workerId: 'w-3' });
    const id = await deadLetter(queue, 'full@example.com');
    await withDashboard(queue, async (d) => {
      const viewer = await d.login(TOKENS.viewer);
      const timeline = (await d.call('GET', `api/queues/${queueName}/jobs/${id}`, { session: viewer })).body.timeline as { event: string; detail?: string; atMs: number }[];
      expect(timeline.map(({ event, detail }) => [event, detail])).toEqual([
        ['enqueued', 'attempt 0'],
        ['claimed', 'attempt 1, by w-3'],
        ['failed', 'attempt 1, by w-3, code Error'],
      ]);
      expect(timeline.every((entry) => entry.atMs > 0)).toBe(true);
    });
    await queue.close();
  });

  test('pause and resume act on the real queue, whole or one kind, and the overview shows the state from its one stats read', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { to: 'p@example.com' });
    await withDashboard(queue, async (d) => {
      const session = await d.login(TOKENS.operator);
      expect(await d.call('POST', `api/queues/${queueName}/pause`, { session })).toMatchObject({ status: 200, body: { queue: queueName, paused: true } });
      expect((await queue.stats()).paused).toBe(true);
      expect(await queue.claim()).toEqual([]);
      expect((await d.call('GET', 'api/overview', { session })).body.queues[0].flow).toEqual({ paused: true, pausedKinds: [], kinds: ['email'] });
      await d.call('POST', `api/queues/${queueName}/resume`, { session });
      expect((await queue.stats()).paused).toBe(false);

      expect(await d.call('POST', `api/queues/${queueName}/pause`, { session, body: { kind: 'email' } })).toMatchObject({ status: 200, body: { queue: queueName, kind: 'email', paused: true } });
      expect(await queue.claim()).toEqual([]);
      expect((await d.call('GET', 'api/overview', { session })).body.queues[0].flow).toMatchObject({ paused: false, pausedKinds: ['email'] });
      await d.call('POST', `api/queues/${queueName}/resume`, { session, body: { kind: 'email' } });
      expect((await queue.claim())[0]?.id).toBe(id);
    });
  });

  test('a kind pause names a kind: a malformed name gets 400 bad_body, a kind the queue lacks 400 invalid_argument, and nothing is paused', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await withDashboard(queue, async (d) => {
      const session = await d.login(TOKENS.operator);
      for (const kind of [42, '', '9lives', 'a'.repeat(65), '<b>x</b>']) {
        const answer = await d.call('POST', `api/queues/${queueName}/pause`, { session, body: { kind } });
        expect(answer.status, JSON.stringify(kind)).toBe(400);
        expect(answer.body.error.code).toBe('bad_body');
      }
      const typo = await d.call('POST', `api/queues/${queueName}/pause`, { session, body: { kind: 'emial' } });
      expect(typo.status).toBe(400);
      expect(typo.body.error).toMatchObject({ code: 'invalid_argument', message: expect.stringContaining('emial') });
      expect(await queue.stats()).toMatchObject({ paused: false, pausedKinds: [] });
      // A viewer cannot pause.
      const viewer = await d.login(TOKENS.viewer);
      expect((await d.call('POST', `api/queues/${queueName}/pause`, { session: viewer })).status).toBe(403);
      expect((await queue.stats()).paused).toBe(false);
    });
  });

  test("the daemon's queues (opened without kinds) pause and resume any kind by name, and list schedules with their next run", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { to: 'k@example.com' });
    const { nextRunAt } = await queue.schedules.upsert({ id: 'digest', kind: 'email', payload: { to: 'team@example.com' }, cron: '0 8 * * *', tz: 'Europe/Paris' });
    await queue.schedules.upsert({ id: 'poll', kind: 'email', payload: { to: 'poll@example.com' }, every: 90_000 });
    await queue.schedules.pause('poll');
    const d = await startTestDashboard(undefined, { source: jobQueueSource(namedQueues(redis, () => [queueName])) });
    try {
      const first = await d.call('GET', 'api/session');
      const session = { cookie: first.headers.get('set-cookie')!.split(';')[0]!, csrfToken: first.body.csrfToken, role: 'operator' };
      expect((await d.call('POST', `api/queues/${queueName}/pause`, { session, body: { kind: 'email' } })).status).toBe(200);
      expect((await queue.stats()).pausedKinds).toEqual(['email']);
      expect(await queue.claim()).toEqual([]);
      expect((await d.call('GET', 'api/overview')).body.queues[0].flow).toEqual({ paused: false, pausedKinds: ['email'], kinds: [] });
      expect((await d.call('POST', `api/queues/${queueName}/resume`, { session, body: { kind: 'email' } })).status).toBe(200);
      expect((await queue.claim())[0]?.id).toBe(id);
      expect((await d.call('GET', `api/queues/${queueName}/schedules`)).body.schedules).toEqual([
        { name: 'digest', kind: 'email', every: '0 8 * * * (Europe/Paris)', nextRunAtMs: nextRunAt, status: 'active' },
        { name: 'poll', kind: 'email', every: 'every 90 s', nextRunAtMs: null, status: 'paused' },
      ]);
    } finally {
      await d.close();
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

describe('the dashboard API: the waiting list', () => {
  test('pages through jobs waiting behind their groups, and without a count (too many groups) ends where a page comes back short', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    for (let i = 0; i < 5; i++) await queue.enqueue('email', { to: `${i}@example.com` }, { group: 'acme' });
    const plain = jobQueueSource([queue]);
    let counted = true;
    // As the queue's stats read when more than 10,000 groups wait: no count of the grouped jobs.
    const source: DashboardDataSource = { ...plain, stats: async (name) => ({ ...(await plain.stats(name)), ...(counted ? {} : { groupedDepth: null, waitingDepth: null }) }) };
    const d = await startTestDashboard(undefined, { source });
    try {
      const first = await d.call('GET', `api/queues/${queueName}/jobs?state=waiting&limit=3`);
      expect(first.body).toMatchObject({ depth: 5, offset: 0, scanned: 3, nextOffset: 3 });
      expect(first.body.jobs).toHaveLength(3);
      counted = false;
      const uncounted = await d.call('GET', `api/queues/${queueName}/jobs?state=waiting&limit=3`);
      expect(uncounted.body).toMatchObject({ depth: null, scanned: 3, nextOffset: 3 });
      const last = await d.call('GET', `api/queues/${queueName}/jobs?state=waiting&offset=3&limit=3`);
      expect(last.body).toMatchObject({ depth: null, scanned: 2, nextOffset: null });
      expect(last.body.jobs.map((job: { id: string }) => job.id)).toEqual((await queue.list('waiting', { offset: 3 })).map((job) => job.id));
      // Filtered, the scan stops at the list's end too.
      const filtered = await d.call('GET', `api/queues/${queueName}/jobs?state=waiting&kind=email&limit=3`);
      expect(filtered.body).toMatchObject({ depth: null, scanned: 5, nextOffset: null, filtered: true });
      expect(filtered.body.jobs).toHaveLength(5);
    } finally {
      await d.close();
    }
  });
});
