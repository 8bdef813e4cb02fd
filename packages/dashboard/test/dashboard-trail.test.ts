import { defineKinds, Queue } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { jobQueueSource, type DashboardDataSource } from '../src/index.ts';
import { ATTEMPTS_SHOWN, LOG_LINES_SHOWN } from '../src/job-trail-detail.ts';
import { startTestDashboard, TOKENS } from './dashboard-client.ts';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { to: { type: 'string' } } } } });

describe("the job detail explains a failure: its error, its attempts and its log lines", () => {
  test('a job retried then dead-lettered shows job.error, each attempt with its worker, outcome and error, and its log lines', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, workerId: 'w-7', backoff: { type: 'fixed', delayMs: 0 } });
    const id = await queue.enqueue('email', { to: 'a@example.com' }, { maxAttempts: 2 });
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const [job] = await queue.claim();
      if (!job) throw new Error('expected a job');
      await queue.appendLogs(job, [{ atMs: 1_000 + attempt, line: `<img src=x onerror=alert(${attempt})>` }]);
      await queue.fail(job, Object.assign(new Error(`mailbox full (${attempt})`, { cause: new Error('552') }), { code: 'MAILBOX_FULL' }));
    }
    const d = await startTestDashboard([queue], { credentials: { operatorToken: TOKENS.operator, viewerToken: TOKENS.viewer } });
    try {
      const viewer = await d.login(TOKENS.viewer);
      expect((await d.call('GET', 'api/session', { session: viewer })).body.capabilities).toMatchObject({ attempts: true, logs: true });
      const { body } = await d.call('GET', `api/queues/${queueName}/jobs/${id}`, { session: viewer });
      expect(body.job.error).toMatchObject({ code: 'MAILBOX_FULL', message: 'mailbox full (2)', cause: { message: '552' } });
      expect(body.job.error.stack).toContain('mailbox full (2)');
      expect(body.attempts.trimmed).toBe(0);
      expect(body.attempts.entries.map((entry: { attempt: number; workerId: string; outcome: string; error: { code: string } }) => [entry.attempt, entry.workerId, entry.outcome, entry.error.code])).toEqual([
        [1, 'w-7', 'retried', 'MAILBOX_FULL'],
        [2, 'w-7', 'failed', 'MAILBOX_FULL'],
      ]);
      for (const entry of body.attempts.entries) expect(entry.durationMs).toBe(entry.endedAtMs - entry.claimedAtMs);
      expect(body.logs).toEqual({
        lines: [
          { atMs: 1_001, attempt: 1, line: '<img src=x onerror=alert(1)>' },
          { atMs: 1_002, attempt: 2, line: '<img src=x onerror=alert(2)>' },
        ],
        trimmed: 0,
      });
    } finally {
      await d.close();
    }
    await queue.close();
  });

  test("a recipe client's bare last_error shows as { message } in job.error", async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await redis.hset(queue.keys.job('recipe-9'), { id: 'recipe-9', payload: '{"kind":"email"}', status: 'failed', attempts: '1', last_error: 'ValueError: bad address' });
    const d = await startTestDashboard([queue]);
    try {
      const { body } = await d.call('GET', `api/queues/${queueName}/jobs/recipe-9`);
      expect(body.job.error).toEqual({ message: 'ValueError: bad address' });
      expect(body.attempts.entries).toEqual([{ attempt: 1, claimedAtMs: null, endedAtMs: null, durationMs: null, outcome: 'failed', error: { message: 'ValueError: bad address' } }]);
      expect(body.logs).toEqual({ lines: [], trimmed: 0 });
    } finally {
      await d.close();
    }
    await queue.close();
  });

  test("every text is cut to a bounded size and the newest attempts and lines only are sent, whatever a source hands over", async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const id = await queue.enqueue('email', { to: 'a@example.com' });
    const huge = 'x'.repeat(1_000_000);
    let deep: Record<string, unknown> = { message: 'root' };
    for (let i = 0; i < 50; i += 1) deep = { message: `level ${i}`, cause: deep };
    const source: DashboardDataSource = {
      ...jobQueueSource([queue]),
      attempts: async () => ({
        jobId: id,
        trimmed: 5,
        entries: Array.from({ length: ATTEMPTS_SHOWN + 20 }, (_, i) => ({ attempt: i + 1, workerId: huge, claimedAtMs: 1, endedAtMs: 2, durationMs: 1, outcome: 'failed' as const, error: { code: huge, message: huge, stack: huge, cause: deep as never } })),
      }),
      logs: async () => ({ jobId: id, trimmed: 7, lines: Array.from({ length: LOG_LINES_SHOWN + 30 }, (_, i) => ({ atMs: i, line: huge })) }),
    };
    const d = await startTestDashboard(undefined, { source });
    try {
      const answer = await d.call('GET', `api/queues/${queueName}/jobs/${id}`);
      expect(answer.status).toBe(200);
      const { attempts, logs } = answer.body;
      expect(attempts.entries).toHaveLength(ATTEMPTS_SHOWN);
      expect(attempts.entries[0].attempt).toBe(21);
      expect(attempts.trimmed).toBe(25);
      const first = attempts.entries[0];
      expect(first.workerId.length).toBeLessThanOrEqual(128);
      expect(first.error.code.length).toBeLessThanOrEqual(64);
      expect(first.error.message.length).toBeLessThanOrEqual(4_096);
      expect(first.error.stack.length).toBeLessThanOrEqual(8_192);
      // Causes three deep at most.
      expect(first.error.cause.cause.cause.cause).toBeUndefined();
      expect(logs.lines).toHaveLength(LOG_LINES_SHOWN);
      expect(logs.trimmed).toBe(37);
      expect(logs.lines.every((line: { line: string }) => line.line.length <= 2_048)).toBe(true);
      // The whole answer stays bounded: about 50 attempts and 500 lines of a few KiB each.
      expect(JSON.stringify(answer.body).length).toBeLessThan(5_000_000);
    } finally {
      await d.close();
    }
    await queue.close();
  });

  test('an attempts or logs read that fails leaves the rest of the detail shown, with a note for each', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const id = await queue.enqueue('email', { to: 'a@example.com' });
    const source: DashboardDataSource = {
      ...jobQueueSource([queue]),
      attempts: () => {
        throw new Error('redis://user:secret@host/0 refused');
      },
      logs: async () => {
        throw new Error('boom');
      },
    };
    const d = await startTestDashboard(undefined, { source });
    try {
      const answer = await d.call('GET', `api/queues/${queueName}/jobs/${id}`);
      expect(answer.status).toBe(200);
      expect(answer.body.job.id).toBe(id);
      expect(answer.body.attemptsError).toBe('the attempts of this job could not be read');
      expect(answer.body.logsError).toBe('the log lines of this job could not be read');
      expect(JSON.stringify(answer.body)).not.toContain('secret');
    } finally {
      await d.close();
    }
    await queue.close();
  });
});
