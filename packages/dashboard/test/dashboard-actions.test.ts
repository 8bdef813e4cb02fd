import { defineKinds, Queue, type RedisClient } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { startTestDashboard, TOKENS, type Session, type TestDashboard } from './dashboard-client.ts';

const kinds = defineKinds({
  email: { schema: { type: 'object', properties: { to: { type: 'string' } } } },
  sms: { schema: { type: 'object', properties: { to: { type: 'string' } } } },
});

function openQueue(redis: RedisClient, queueName: string) {
  return new Queue({ redis, queue: queueName, kinds });
}

type TestQueue = ReturnType<typeof openQueue>;

const HOUR = 3_600_000;

async function withDashboard(queue: TestQueue, run: (d: TestDashboard, operator: Session) => Promise<void>, options: { scanLimit?: number } = {}): Promise<void> {
  const d = await startTestDashboard([queue], { credentials: { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer }, ...options });
  try {
    await run(d, await d.login(TOKENS.operator));
  } finally {
    await d.close();
  }
}

describe('the dashboard API: promote, priority, delete', () => {
  test('the session lists the capabilities, and each action answers with its count', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const delayed = await queue.enqueue('email', { to: 'a' }, { delayMs: HOUR });
    const waiting = await queue.enqueue('email', { to: 'b' });
    await withDashboard(queue, async (d, session) => {
      expect((await d.call('GET', 'api/session', { session })).body.capabilities).toMatchObject({ promote: true, changePriority: true, remove: true });
      const base = `api/queues/${queueName}/jobs`;
      expect(await d.call('POST', `${base}/${delayed}/promote`, { session })).toMatchObject({ status: 200, body: { id: delayed, promoted: true, count: 1 } });
      expect((await queue.getJob(delayed))?.status).toBe('pending');
      expect(await d.call('POST', `${base}/${waiting}/priority`, { session, body: { priority: 7 } })).toMatchObject({ status: 200, body: { id: waiting, priority: 7, count: 1 } });
      expect((await queue.claim())[0]?.id).toBe(waiting);
      expect(await d.call('POST', `${base}/${delayed}/delete`, { session })).toMatchObject({ status: 200, body: { id: delayed, deleted: true, count: 1 } });
      expect(await queue.getJob(delayed)).toBeNull();
    });
  });

  test('a job in the wrong state gets 409 and a missing one 404, changing nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const running = await queue.enqueue('email', { to: 'a' });
    await queue.claim();
    await withDashboard(queue, async (d, session) => {
      const base = `api/queues/${queueName}/jobs`;
      for (const [action, body] of [['promote', {}], ['priority', { priority: 1 }], ['delete', {}]] as const) {
        const answer = await d.call('POST', `${base}/${running}/${action}`, { session, body });
        expect(answer.status, action).toBe(409);
        expect(answer.body.error.code).toBe('conflict');
        expect(answer.body.error.message).toContain('processing');
        expect((await d.call('POST', `${base}/nope-1/${action}`, { session, body })).status).toBe(404);
      }
      expect((await queue.getJob(running))?.status).toBe('processing');
    });
  });

  test('a bad body gets 400 with a code: a priority out of range, a bad id, a bulk without expected', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { to: 'a' });
    await withDashboard(queue, async (d, session) => {
      for (const priority of [1001, 1.5, '3', undefined]) {
        const answer = await d.call('POST', `api/queues/${queueName}/jobs/${id}/priority`, { session, body: { priority } });
        expect(answer.status, String(priority)).toBe(400);
        expect(answer.body.error.code).toBe('bad_body');
      }
      expect((await d.call('POST', `api/queues/${queueName}/jobs/bad%20id/delete`, { session })).body.error.code).toBe('bad_id');
      const bulk = `api/queues/${queueName}/bulk`;
      for (const body of [
        { action: 'delete', ids: [id] },
        { action: 'delete', ids: [id], expected: 0 },
        { action: 'delete', ids: [id], expected: 1001 },
        { action: 'explode', ids: [id], expected: 1 },
        { action: 'delete', expected: 1 },
        { action: 'delete', ids: [id], filter: { state: 'pending' }, expected: 1 },
        { action: 'delete', ids: [], expected: 1 },
        { action: 'delete', ids: Array.from({ length: 1001 }, (_, n) => `j${n}`), expected: 1 },
        { action: 'delete', ids: ['bad id'], expected: 1 },
        { action: 'priority', ids: [id], expected: 1 },
        { action: 'delete', filter: { state: 'nowhere' }, expected: 1 },
        { action: 'delete', filter: { kind: 'email' }, expected: 1 },
        { action: 'delete', filter: { state: 'pending', colour: 'red' }, expected: 1 },
        { action: 'delete', ids: [id], expected: 1, force: true },
      ]) {
        const answer = await d.call('POST', bulk, { session, body });
        expect(answer.status, JSON.stringify(body).slice(0, 120)).toBe(400);
        expect(typeof answer.body.error.code).toBe('string');
      }
      expect((await queue.getJob(id))?.status).toBe('pending');
    });
  });

  test('a viewer gets 403 on each new action and on bulk, and nothing changes', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { to: 'a' }, { delayMs: HOUR });
    await withDashboard(queue, async (d) => {
      const viewer = await d.login(TOKENS.viewer);
      for (const [path, body] of [[`jobs/${id}/promote`, {}], [`jobs/${id}/priority`, { priority: 3 }], [`jobs/${id}/delete`, {}], ['bulk', { action: 'delete', ids: [id], expected: 1 }], ['quiet-workers', {}], ['resume-workers', {}]] as const) {
        const answer = await d.call('POST', `api/queues/${queueName}/${path}`, { session: viewer, body });
        expect(answer.status, path).toBe(403);
        expect(answer.body.error.code).toBe('read_only');
      }
      expect((await queue.getJob(id))?.status).toBe('delayed');
    });
  });

  test('quiet-workers and resume-workers need the CSRF token and the Origin, and refuse a bad worker id', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await withDashboard(queue, async (d, session) => {
      const path = `api/queues/${queueName}/quiet-workers`;
      expect((await d.call('POST', path, { session, body: {}, csrf: null })).status).toBe(403);
      expect((await d.call('POST', path, { session, body: {}, origin: 'http://evil.example' })).status).toBe(403);
      const bad = await d.call('POST', path, { session, body: { workerId: 'has space' } });
      expect([bad.status, bad.body.error.code]).toEqual([400, 'bad_body']);
      const none = await d.call('POST', path, { session, body: {} });
      expect([none.status, none.body.told, none.body.count]).toEqual([200, [], 0]);
    });
  });

  test('a bulk action needs the CSRF token and the Origin, as every action does', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { to: 'a' });
    await withDashboard(queue, async (d, session) => {
      const body = { action: 'delete', ids: [id], expected: 1 };
      expect((await d.call('POST', `api/queues/${queueName}/bulk`, { session, body, csrf: null })).status).toBe(403);
      expect((await d.call('POST', `api/queues/${queueName}/bulk`, { session, body, origin: 'http://evil.example' })).status).toBe(403);
      expect((await queue.getJob(id))?.status).toBe('pending');
    });
  });

  test('the list route takes the new states, each with its depth', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { to: 'a' });
    const high = [await queue.enqueue('email', { to: 'b' }, { priority: 4 }), await queue.enqueue('email', { to: 'c' }, { priority: 4 })];
    const parent = await queue.enqueueFlow({ kind: 'email', payload: { to: 'p' }, children: [{ kind: 'sms', payload: { to: 'q' } }] });
    await withDashboard(queue, async (d, session) => {
      const prioritized = await d.call('GET', `api/queues/${queueName}/jobs?state=prioritized`, { session });
      expect(prioritized.status).toBe(200);
      expect(prioritized.body.depth).toBe((await queue.stats()).prioritizedDepth);
      expect(prioritized.body.jobs.map((job: { id: string }) => job.id)).toEqual(expect.arrayContaining([high[1]]));
      const parents = await d.call('GET', `api/queues/${queueName}/jobs?state=waiting-children`, { session });
      expect(parents.body).toMatchObject({ depth: 1, jobs: [{ id: parent.id, status: 'waiting-children' }] });
      for (const state of ['grouped', 'parked']) expect((await d.call('GET', `api/queues/${queueName}/jobs?state=${state}`, { session })).body).toMatchObject({ depth: 0, jobs: [] });
    });
  });
});

describe('the dashboard API: bulk', () => {
  test('by ids: acts on each, skips those whose state refuses with their status, and counts what it did', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const delayed = [await queue.enqueue('email', { to: 'a' }, { delayMs: HOUR }), await queue.enqueue('email', { to: 'b' }, { delayMs: HOUR })];
    const pending = await queue.enqueue('email', { to: 'c' });
    await withDashboard(queue, async (d, session) => {
      const answer = await d.call('POST', `api/queues/${queueName}/bulk`, { session, body: { action: 'promote', ids: [...delayed, pending, 'gone-1'], expected: 4 } });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ action: 'promote', matched: 4, done: 2, skipped: [{ id: pending, status: 'pending' }, { id: 'gone-1', status: 'not_found' }], more: false, count: 2 });
      expect((await queue.stats()).delayedDepth).toBe(0);
    });
  });

  test('acts on at most the expected count the operator confirmed, and says more are left', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) ids.push(await queue.enqueue('email', { to: `${n}` }));
    await withDashboard(queue, async (d, session) => {
      const answer = await d.call('POST', `api/queues/${queueName}/bulk`, { session, body: { action: 'priority', priority: 3, ids, expected: 2 } });
      expect(answer.body).toMatchObject({ matched: 5, done: 2, more: true, count: 2 });
      expect((await queue.stats()).prioritizedDepth + (await queue.stats()).pendingDepth).toBe(5);
      expect((await queue.list('waiting')).slice(0, 2).map((job) => job.id).sort()).toEqual(ids.slice(0, 2).sort());
    });
  });

  test('by filter: resolves the ids with the bounded scan of the list, never past the scan limit', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    // Twelve delayed jobs, every other one an sms; the dashboard scans 6 ids per request.
    const sms: string[] = [];
    for (let n = 0; n < 12; n++) {
      const id = await queue.enqueue(n % 2 === 0 ? 'sms' : 'email', { to: `${n}` }, { delayMs: HOUR + n });
      if (n % 2 === 0) sms.push(id);
    }
    await withDashboard(
      queue,
      async (d, session) => {
        const first = await d.call('POST', `api/queues/${queueName}/bulk`, { session, body: { action: 'delete', filter: { state: 'delayed', kind: 'sms' }, expected: 100 } });
        expect(first.status).toBe(200);
        // The scan read the first 6 delayed ids (due order): 3 of them sms.
        expect(first.body).toMatchObject({ action: 'delete', matched: 3, done: 3, skipped: [], more: true, count: 3 });
        for (const id of sms.slice(0, 3)) expect(await queue.getJob(id)).toBeNull();
        expect((await queue.stats()).delayedDepth).toBe(9);
        // The next requests scan from the start again, 6 ids of a shorter list each: 2 sms, then 1, then none and the end.
        const body = { action: 'delete', filter: { state: 'delayed', kind: 'sms' }, expected: 100 };
        expect((await d.call('POST', `api/queues/${queueName}/bulk`, { session, body })).body).toMatchObject({ matched: 2, done: 2, more: true });
        expect((await d.call('POST', `api/queues/${queueName}/bulk`, { session, body })).body).toMatchObject({ matched: 1, done: 1, more: true });
        expect((await d.call('POST', `api/queues/${queueName}/bulk`, { session, body })).body).toMatchObject({ matched: 0, done: 0, more: false, count: 0 });
        expect((await queue.list('delayed', { limit: 100 })).every((job) => job.kind === 'email')).toBe(true);
      },
      { scanLimit: 6 },
    );
  });

  test('by filter with no field filter: the first expected ids of the state, in list order', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const ids: string[] = [];
    for (let n = 0; n < 4; n++) ids.push(await queue.enqueue('email', { to: `${n}` }, { delayMs: HOUR + n }));
    await withDashboard(queue, async (d, session) => {
      const answer = await d.call('POST', `api/queues/${queueName}/bulk`, { session, body: { action: 'cancel', filter: { state: 'delayed' }, expected: 3 } });
      expect(answer.body).toMatchObject({ matched: 3, done: 3, more: true, count: 3 });
      expect(await Promise.all(ids.map(async (id) => (await queue.getJob(id))?.status))).toEqual(['cancelled', 'cancelled', 'cancelled', 'delayed']);
    });
  });

  test('a pause from the dashboard records who paused: the job page says so', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const id = await queue.enqueue('email', { to: 'a' });
    await withDashboard(queue, async (d, session) => {
      expect((await d.call('POST', `api/queues/${queueName}/pause`, { session, body: { kind: 'email' } })).body).toMatchObject({ paused: true, count: 1 });
      const why = await queue.why(id);
      expect(why?.reasons.find((r) => r.code === 'kind-paused')).toMatchObject({ pausedBy: 'dashboard operator' });
      const detail = await d.call('GET', `api/queues/${queueName}/jobs/${id}`, { session });
      expect(JSON.stringify(detail.body.why)).toContain('by dashboard operator');
    });
  });
});
