import { defineKinds, Queue, queueKeys, type RedisClient } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { startTestDashboard, TOKENS } from './dashboard-client.ts';

const kinds = defineKinds({
  email: { schema: { type: 'object', properties: { to: { type: 'string' }, user: { type: 'object' } } } },
  report: { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
});

function openQueue(redis: RedisClient, queueName: string) {
  return new Queue({ redis, queue: queueName, kinds });
}

/** Claims the job just enqueued and fails it for good with `error`. */
async function failWith(queue: ReturnType<typeof openQueue>, to: string, error: Error): Promise<string> {
  const id = await queue.enqueue('email', { to }, { maxAttempts: 1 });
  const [job] = await queue.claim();
  if (job?.id !== id) throw new Error('expected to claim the job just enqueued');
  await queue.fail(job, error);
  return id;
}

const ids = (body: { jobs: { id: string }[] }): string[] => body.jobs.map((job) => job.id).sort();

describe('the workspace API: search filters, flows, workers and page URLs', () => {
  test('the failed list filters by error code, by id, by payload text and by time range, each a bounded scan', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const smtp = Object.assign(new Error('mailbox full'), { name: 'SmtpError' });
    const a = await failWith(queue, 'ann@example.com', smtp);
    const b = await failWith(queue, 'bob@example.com', new Error('connection reset'));
    const c = await failWith(queue, 'cid@EXAMPLE.org', smtp);
    const failedAt = Number((await queue.getJob(b))?.failedAtMs);
    const d = await startTestDashboard([queue], { scanLimit: 2 });
    try {
      const list = (query: string) => d.call('GET', `api/queues/${queueName}/jobs?state=failed&${query}`);
      const byCode = await list('code=SmtpError');
      expect(byCode.status).toBe(200);
      // At most the scan limit (2) of the 3 failed jobs is read per request; the next window resumes.
      expect(byCode.body).toMatchObject({ filtered: true, scanned: 2, nextOffset: 2, depth: 3 });
      const rest = await list('code=SmtpError&offset=2');
      expect([...ids(byCode.body), ...ids(rest.body)].sort()).toEqual([a, c].sort());
      expect(rest.body.nextOffset).toBeNull();
      expect(byCode.body.jobs.every((job: { errorCode: string }) => job.errorCode === 'SmtpError')).toBe(true);
      // A bare message has no code.
      const all = await d.call('GET', `api/queues/${queueName}/jobs?state=failed&limit=10`);
      expect(all.body.jobs.find((job: { id: string }) => job.id === b).errorCode).toBeUndefined();
      expect(ids((await list(`id=${b.slice(2, 10)}&offset=0`)).body).concat(ids((await list(`id=${b.slice(2, 10)}&offset=2`)).body))).toEqual([b]);
      const text = [...ids((await list('text=example.org')).body), ...ids((await list('text=example.org&offset=2')).body)];
      expect(text).toEqual([c]);
      const range = [...ids((await list(`from=${failedAt}&to=${failedAt}`)).body), ...ids((await list(`from=${failedAt}&to=${failedAt}&offset=2`)).body)];
      expect(range).toContain(b);
      expect(range.every((id) => [a, b, c].includes(id))).toBe(true);
      // Bad filters are refused with the field named, and nothing is read.
      for (const [query, field] of [['code=a%20b', 'code'], ['from=yesterday', 'from'], [`from=${failedAt + 1}&to=${failedAt}`, 'from'], [`text=${'x'.repeat(257)}`, 'text']]) {
        const answer = await list(query as string);
        expect(answer.status, query).toBe(400);
        expect(answer.body.error.code, query).toBe('bad_query');
        expect(answer.body.error.message, query).toContain(field);
      }
    } finally {
      await d.close();
    }
  });

  test("a flow's children are listed with their kind and status; the queue's live workers with their host", async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const flow = await queue.enqueueFlow({ kind: 'report', payload: { n: 1 }, children: [{ kind: 'email', payload: { to: 'a@example.com' } }, { kind: 'report', payload: { n: 2 } }] });
    const d = await startTestDashboard([queue]);
    try {
      const answer = await d.call('GET', `api/queues/${queueName}/jobs/${flow.id}/children`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        queue: queueName,
        id: flow.id,
        children: flow.children.map((child, i) => ({ id: child.id, kind: i === 0 ? 'email' : 'report', status: 'waiting' })),
      });
      expect((await d.call('GET', `api/queues/${queueName}/jobs/${flow.children[0]!.id}/children`)).body.children).toEqual([]);
      expect((await d.call('GET', `api/queues/${queueName}/jobs/not%20an%20id/children`)).status).toBe(400);
      expect((await d.call('GET', `api/queues/${queueName}/workers`)).body).toEqual({ queue: queueName, workers: [] });
      expect((await d.call('GET', 'api/queues/no-such-queue/workers')).status).toBe(404);
    } finally {
      await d.close();
    }
  });

  test('every page URL answers the page under the base path, signed out ones go to the login, other paths stay 404', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { to: 'x@example.com' });
    const d = await startTestDashboard([queue], { credentials: { operatorToken: TOKENS.operator }, basePath: '/ops/jobs' });
    try {
      const session = await d.login(TOKENS.operator);
      const pages = ['', 'queues/q', 'queues/q/failed', 'queues/q/waiting-children', 'queues/q/jobs/abc-1', 'queues/q/schedules', 'queues/q/workers', 'queues/q/workers/w%3A1', 'queues/q/batches', 'queues/q/history', 'queues/q/audit'];
      for (const path of pages) {
        const page = await d.call('GET', path, { session });
        expect(page.status, path).toBe(200);
        expect(page.headers.get('content-type'), path).toMatch(/^text\/html/);
        // Absolute links: a page at /ops/jobs/queues/q/jobs/abc-1 finds its script and style.
        expect(page.body, path).toContain('src="/ops/jobs/assets/app.js"');
        expect(page.body, path).toContain('href="/ops/jobs/assets/app.css"');
        expect(page.body, path).toContain('<meta name="jobs-base-path" content="/ops/jobs">');
        // Signed out: to the login, which comes back to this page.
        const signedOut = await d.call('GET', path);
        expect(signedOut.status, path).toBe(303);
        expect(signedOut.headers.get('location'), path).toBe(path === '' ? '/ops/jobs/login' : `/ops/jobs/login?next=/${path}`);
      }
      const login = await d.call('GET', 'login?next=/queues/q/jobs/abc-1');
      expect(login.body).toContain('action="login?next=/queues/q/jobs/abc-1"');
      const back = await fetch(new URL('login?next=/queues/q/jobs/abc-1', d.url), {
        method: 'POST',
        redirect: 'manual',
        headers: { origin: new URL(d.url).origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: TOKENS.operator }).toString(),
      });
      expect(back.headers.get('location')).toBe('/ops/jobs/queues/q/jobs/abc-1');
      // Anywhere else (another site, a path that is no page, markup) goes to the overview.
      for (const next of ['https://evil.example/', '//evil.example/x', '/api/overview', '/queues/q/"><b>x</b>', '/queues/q/a/b/c']) {
        const page = await d.call('GET', `login?next=${encodeURIComponent(next)}`);
        expect(page.body, next).toContain('action="login"');
      }
      for (const path of ['queues', 'queues/q/jobs/a/b', 'other', 'assets/app.ts']) expect((await d.call('GET', path, { session })).status, path).toBe(404);
      expect((await d.call('GET', 'assets/app.js', { session })).status).toBe(200);
    } finally {
      await d.close();
    }
  });

  test('a job hash written by hand with a JSON or code-prefixed last error gives its code to the list', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const k = queueKeys(queueName);
    const template = { payload: JSON.stringify({ kind: 'email', to: 'h@example.com' }), status: 'failed', attempts: '1', enqueued_at_ms: '1', claim_token: '' };
    await redis.hset(k.job('h-json'), { ...template, id: 'h-json', last_error: JSON.stringify({ code: 'E_JSON', message: 'x' }) });
    await redis.hset(k.job('h-prefix'), { ...template, id: 'h-prefix', last_error: 'JOBS_TIMEOUT: took too long' });
    await redis.hset(k.job('h-bare'), { ...template, id: 'h-bare', last_error: 'it broke: badly' });
    await redis.lpush(k.failed, 'h-json', 'h-prefix', 'h-bare');
    const d = await startTestDashboard([queue]);
    try {
      const codes = Object.fromEntries((await d.call('GET', `api/queues/${queueName}/jobs?state=failed`)).body.jobs.map((job: { id: string; errorCode?: string }) => [job.id, job.errorCode ?? null]));
      // A bare message has no code, even with a colon in it.
      expect(codes).toEqual({ 'h-json': 'E_JSON', 'h-prefix': 'JOBS_TIMEOUT', 'h-bare': null });
    } finally {
      await d.close();
    }
  });
});
