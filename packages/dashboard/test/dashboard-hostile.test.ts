import { defineKinds, Queue, queueKeys } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { startTestDashboard, TOKENS, type Session, type TestDashboard } from './dashboard-client.ts';
import { BATCH_FIELDS, expectSane, HOSTILE, hostileId, JOB_FIELDS, LISTED, listHostileJobs, SCHEDULE_FIELDS, writeHostileBatches, writeHostileJobs, writeHostileSchedules, type ListedState } from './dashboard-hostile.ts';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { to: { type: 'string' } } } } });
const STATES = ['pending', 'waiting', 'processing', 'delayed', 'completed', 'failed'] as const;

/** What a hostile value reads as once stored (bytes that are not UTF-8 come back replaced). */
function storedText(value: string | Buffer): string {
  return typeof value === 'string' ? value : value.toString('utf8');
}

async function expectOk(d: TestDashboard, path: string, where: string, session?: Session) {
  const answer = await d.call('GET', path, session ? { session } : {});
  expect(answer.status, `${where}: GET ${path} answered ${JSON.stringify(answer.body).slice(0, 300)}`).toBe(200);
  expect(typeof answer.body, `${where}: GET ${path} is JSON`).toBe('object');
  expectSane(answer.body, `${where}: GET ${path}`);
  return answer.body;
}

describe('the dashboard API with hand-written hashes', () => {
  test('every route that shows jobs or schedules answers 200 with drawable JSON, whatever value any field of a job hash holds', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, eventLog: true });
    // Real jobs first, so the lists and the admission hash (a priority) exist as our clients make them.
    const realId = await queue.enqueue('email', { to: 'real@example.com' });
    await queue.enqueue('email', { to: 'urgent@example.com' }, { priority: 1 });
    const template = await redis.hgetall(queueKeys(queueName).job(realId));
    expect(template.log_ids).toBeTruthy();
    await listHostileJobs(redis, queueName, (await queue.stats()).nowMs);
    const d = await startTestDashboard([queue], { maxPageSize: 1_000 });
    try {
      for (const field of JOB_FIELDS) {
        await writeHostileJobs(redis, queueName, template, field);
        for (const state of STATES) {
          const page = await expectOk(d, `api/queues/${queueName}/jobs?state=${state}&limit=1000`, field);
          expect(page.jobs.length, `${field}: ${state}`).toBeGreaterThanOrEqual(HOSTILE.length);
          for (const filter of ['kind=email', 'field=to', 'field=to&value=%22x%22', 'field=constructor']) {
            await expectOk(d, `api/queues/${queueName}/jobs?state=${state}&${filter}`, field);
          }
        }
        const overview = await expectOk(d, 'api/overview', field);
        expect(overview.queues[0].stats.pendingDepth).toBe(HOSTILE.length + 1);
        await expectOk(d, `api/queues/${queueName}/schedules`, field);
        for (const [i, value] of HOSTILE.entries()) {
          const state = Object.keys(LISTED)[i % 5] as ListedState;
          const where = `${field} = ${value === null ? 'missing' : JSON.stringify(storedText(value).slice(0, 40))}`;
          const detail = await expectOk(d, `api/queues/${queueName}/jobs/${hostileId(state, i)}`, where);
          // An event list that is not stream ids is read past (core counts the words), never failing the detail.
          if (field === 'log_ids' && value === 'abc') expect(detail.timelineError, where).toBeUndefined();
          if (field === 'kind') expect(detail.timeline?.[0]?.event, where).toBe('enqueued');
          // The value is shown as the text it is (cut when huge), never dropped.
          const shown = detail.job.fields[field];
          if (value === null || field === 'claim_token') expect(shown, where).toBeUndefined();
          else expect(storedText(value).startsWith((shown as string).replace(/… \([\d,]+ more characters not shown\)$/, '')), where).toBe(true);
        }
      }
    } finally {
      await d.close();
      await queue.close();
    }
  }, 300_000);

  test('the schedules panel answers 200 with drawable JSON whatever value any field of a schedule hash holds', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.schedules.upsert({ id: 'real', kind: 'email', payload: { to: 'team@example.com' }, cron: '0 8 * * *' });
    const template = await redis.hgetall(queueKeys(queueName).schedule('real'));
    const d = await startTestDashboard([queue]);
    try {
      for (const field of SCHEDULE_FIELDS) {
        await writeHostileSchedules(redis, queueName, template, field);
        const answer = await expectOk(d, `api/queues/${queueName}/schedules`, field);
        expect(answer.schedules, field).toHaveLength(HOSTILE.length + 1);
        await expectOk(d, 'api/overview', field);
      }
    } finally {
      await d.close();
      await queue.close();
    }
  }, 120_000);

  test('the batches page answers 200 with drawable JSON whatever value any field of a batch hash holds', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.batch({ id: 'real', onSuccess: { kind: 'email', payload: { to: 'done@example.com' } } }).add([{ kind: 'email', payload: { to: 'one@example.com' } }]);
    const template = await redis.hgetall(queueKeys(queueName).batch('real'));
    expect(template['cb_kind:success']).toBe('email');
    const d = await startTestDashboard([queue]);
    try {
      for (const field of BATCH_FIELDS) {
        await writeHostileBatches(redis, queueName, template, field);
        const answer = await expectOk(d, `api/queues/${queueName}/batches?limit=1000`, field);
        // A hash without its total is no batch (core reads none); every other is listed.
        expect(answer.batches, field).toHaveLength(HOSTILE.length + (field === 'total' ? 0 : 1));
        for (const batch of answer.batches) {
          expect(['open', 'sealed', 'finished'], field).toContain(batch.state);
          for (const count of ['total', 'succeeded', 'failed', 'cancelled', 'pending']) expect(batch[count] === null || Number.isFinite(batch[count]), `${field}: ${count}`).toBe(true);
          for (const callback of batch.callbacks) expect(callback.jobId === null || callback.jobId.length <= 200, field).toBe(true);
        }
      }
    } finally {
      await d.close();
      await queue.close();
    }
  }, 120_000);

  test('a schedule upserted with the latest startAt the API takes is listed with a next run a page can draw', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const spec = { id: 'far', kind: 'email', payload: { to: 'far@example.com' }, every: 60_000 } as const;
    try {
      await queue.schedules.upsert({ ...spec, startAt: Number.MAX_SAFE_INTEGER });
    } catch {
      // A core that bounds startAt refuses it: then the hash is as an older core wrote it.
      await queue.schedules.upsert(spec);
      await redis.hset(queueKeys(queueName).schedule('far'), 'start_at_ms', String(Number.MAX_SAFE_INTEGER), 'next_run_ms', String(Number.MAX_SAFE_INTEGER));
    }
    const d = await startTestDashboard([queue]);
    try {
      const answer = await expectOk(d, `api/queues/${queueName}/schedules`, 'startAt');
      expect(answer.schedules).toEqual([expect.objectContaining({ name: 'far', nextRunAtMs: null })]);
    } finally {
      await d.close();
      await queue.close();
    }
  });
});

describe('the dashboard API with malformed escapes', () => {
  const BAD = '%E0%A4%A';

  test('a malformed %-escape in the queue or job id of any route answers 400 bad_path naming the part, and changes nothing', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const id = await queue.enqueue('email', { to: 'escape@example.com' });
    const d = await startTestDashboard([queue], { credentials: { operatorToken: TOKENS.operator } });
    try {
      const session = await d.login(TOKENS.operator);
      const routes: [method: string, path: string, field: string][] = [
        ['GET', `api/queues/${BAD}/jobs`, 'queue'],
        ['GET', `api/queues/${BAD}/jobs/${id}`, 'queue'],
        ['GET', `api/queues/${BAD}/schedules`, 'queue'],
        ['GET', `api/queues/${queueName}/jobs/${BAD}`, 'id'],
        ['GET', `api/queues/${queueName}/jobs/%`, 'id'],
        ...(['redrive-failed', 'purge', 'pause', 'resume'] as const).map((action): [string, string, string] => ['POST', `api/queues/${BAD}/${action}`, 'queue']),
        ...(['retry', 'cancel'] as const).flatMap((action): [string, string, string][] => [
          ['POST', `api/queues/${BAD}/jobs/${id}/${action}`, 'queue'],
          ['POST', `api/queues/${queueName}/jobs/${BAD}/${action}`, 'id'],
        ]),
      ];
      for (const [method, path, field] of routes) {
        const answer = await d.call(method, path, { session, ...(method === 'POST' && { body: { expected: 1, confirm: queueName } }) });
        expect(answer.status, `${method} ${path}`).toBe(400);
        expect(answer.body.error, `${method} ${path}`).toEqual({ code: 'bad_path', field, message: `the ${field} in the path has a malformed %-escape` });
      }
      expect(await queue.stats()).toMatchObject({ pendingDepth: 1, paused: false });
      expect((await queue.getJob(id))?.status).toBe('pending');
    } finally {
      await d.close();
      await queue.close();
    }
  });

  test('malformed escapes in query parts and the sign-in form get an answer of their own, never a 500', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('email', { to: 'query@example.com' });
    const d = await startTestDashboard([queue], { credentials: { operatorToken: TOKENS.operator } });
    try {
      const session = await d.login(TOKENS.operator);
      expect((await d.call('GET', `api/queues/${queueName}/jobs?state=${BAD}`, { session })).body.error.code).toBe('bad_query');
      expect((await d.call('GET', `api/queues/${queueName}/jobs?offset=${BAD}`, { session })).body.error.code).toBe('bad_query');
      for (const query of [`kind=${BAD}`, `field=to&value=${BAD}`, 'kind=%', `${BAD}=1`]) {
        expect((await d.call('GET', `api/queues/${queueName}/jobs?${query}`, { session })).status, query).toBe(200);
      }
      expect((await d.call('GET', `api/overview?x=${BAD}`, { session })).status).toBe(200);
      expect((await d.call('GET', `assets/${BAD}.js`)).status).toBe(404);
      const login = await fetch(new URL('login', d.url), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: d.url.slice(0, -1) }, body: `token=${BAD}`, redirect: 'manual' });
      expect(login.status).toBe(401);
    } finally {
      await d.close();
      await queue.close();
    }
  });
});
