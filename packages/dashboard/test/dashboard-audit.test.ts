import { defineKinds, Queue, type RedisClient } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect, test as plainTest } from 'vitest';
import { auditActionOf, auditTargetOf } from '../src/audit-trail.ts';
import type { DashboardToken } from '../src/index.ts';
import { startTestDashboard, type TestDashboard } from './dashboard-client.ts';

const kinds = defineKinds({ email: { schema: { type: 'object', properties: { to: { type: 'string' } } } } });

const LABELLED: readonly DashboardToken[] = [
  { token: 'alice-token-0123456789', role: 'operator', label: 'alice' },
  { token: 'bob-token-0123456789ab', role: 'operator', label: 'bob (on call)' },
  { token: 'carol-token-0123456789', role: 'viewer', label: 'carol' },
  { token: 'jose-token-0123456789a', role: 'operator', label: 'José Müller 李' },
];
const [ALICE, BOB, CAROL, JOSE] = LABELLED.map((entry) => entry.token) as [string, string, string, string];

function openQueue(redis: RedisClient, queueName: string) {
  return new Queue({ redis, queue: queueName, kinds });
}

/** Enqueues a job and lets it fail on its only attempt: a dead letter. */
async function deadLetter(queue: ReturnType<typeof openQueue>, to: string): Promise<string> {
  const id = await queue.enqueue('email', { to }, { maxAttempts: 1 });
  const [job] = await queue.claim();
  if (!job || job.id !== id) throw new Error('expected to claim the job just enqueued');
  await queue.fail(job, new Error('mailbox full'));
  return id;
}

/** Redis time, ms, on the node that holds `key`. */
async function redisNow(redis: RedisClient, key: string): Promise<number> {
  return Number(await redis.eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)", 1, key));
}

async function withDashboard(queue: ReturnType<typeof openQueue>, options: Parameters<typeof startTestDashboard>[1], run: (d: TestDashboard) => Promise<void>): Promise<void> {
  const d = await startTestDashboard([queue], options);
  try {
    await run(d);
  } finally {
    await d.close();
    await queue.close();
  }
}

describe('the audit trail', () => {
  test('labelled tokens sign in as themselves, and each action is recorded with role, label, target, count and the Redis time', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await withDashboard(queue, { credentials: { tokens: LABELLED } }, async (d) => {
      const [failedA, failedB] = [await deadLetter(queue, 'a'), await deadLetter(queue, 'b'), await deadLetter(queue, 'c')];
      const alice = await d.login(ALICE);
      const bob = await d.login(BOB);
      const carol = await d.login(CAROL);
      expect((await d.call('GET', 'api/session', { session: bob })).body).toMatchObject({ role: 'operator', label: 'bob (on call)' });
      expect((await d.call('GET', 'api/session', { session: carol })).body).toMatchObject({ role: 'viewer', label: 'carol', capabilities: { audit: true } });
      const before = await redisNow(redis, queue.keys.audit);
      const retried = await d.call('POST', `api/queues/${queueName}/jobs/${failedA}/retry`, { session: alice });
      expect(retried.body).toMatchObject({ retried: true, count: 1 });
      const redriven = await d.call('POST', `api/queues/${queueName}/redrive-failed`, { session: bob, body: { expected: 2 } });
      expect(redriven.body).toMatchObject({ redriven: 2, count: 2 });
      expect((await d.call('POST', `api/queues/${queueName}/pause`, { session: bob, body: { kind: 'email' } })).body).toMatchObject({ count: 1 });
      // Refused in the action: recorded with its error code and count 0.
      const conflict = await d.call('POST', `api/queues/${queueName}/jobs/${failedB}/retry`, { session: alice });
      expect(conflict.status).toBe(409);
      // Refused by role: not recorded (a viewer could otherwise push the operators' entries out).
      expect((await d.call('POST', `api/queues/${queueName}/resume`, { session: carol })).status).toBe(403);
      // A label in any script: signed into the cookie and recorded as given.
      const jose = await d.login(JOSE);
      expect((await d.call('POST', `api/queues/${queueName}/resume`, { session: jose, body: { kind: 'email' } })).status).toBe(200);
      const after = await redisNow(redis, queue.keys.audit);
      const trail = await d.call('GET', `api/queues/${queueName}/audit`, { session: carol });
      expect(trail.status).toBe(200);
      expect(trail.body.queue).toBe(queueName);
      expect(trail.body.next).toBeNull();
      expect(trail.body.entries.map(({ id: _id, atMs: _at, ...rest }: Record<string, unknown>) => rest)).toEqual([
        { who: { role: 'operator', label: 'José Müller 李' }, action: 'resume', queue: queueName, target: { kind: 'email' }, count: 1 },
        { who: { role: 'operator', label: 'alice' }, action: 'retry', queue: queueName, target: { id: failedB }, count: 0, error: 'conflict' },
        { who: { role: 'operator', label: 'bob (on call)' }, action: 'pause', queue: queueName, target: { kind: 'email' }, count: 1 },
        { who: { role: 'operator', label: 'bob (on call)' }, action: 'redrive-failed', queue: queueName, target: {}, count: 2 },
        { who: { role: 'operator', label: 'alice' }, action: 'retry', queue: queueName, target: { id: failedA }, count: 1 },
      ]);
      for (const entry of trail.body.entries) {
        expect(entry.atMs).toBeGreaterThanOrEqual(before);
        expect(entry.atMs).toBeLessThanOrEqual(after);
      }
    });
  });

  test('a purge deletes the queue but not its trail, and is itself the newest entry', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await withDashboard(queue, { credentials: { tokens: LABELLED } }, async (d) => {
      const alice = await d.login(ALICE);
      await queue.enqueue('email', { to: 'x' });
      await d.call('POST', `api/queues/${queueName}/pause`, { session: alice });
      const purged = await d.call('POST', `api/queues/${queueName}/purge`, { session: alice, body: { confirm: queueName } });
      expect(purged.body).toMatchObject({ count: 1 });
      expect(purged.body.deletedKeys).toBeGreaterThan(0);
      expect((await queue.stats()).pendingDepth).toBe(0);
      const trail = await d.call('GET', `api/queues/${queueName}/audit`, { session: alice });
      expect(trail.body.entries.map((entry: { action: string; who: { label: string } }) => `${entry.action} by ${entry.who.label}`)).toEqual(['purge by alice', 'pause by alice']);
    });
  });

  test('the trail keeps auditMaxEntries entries, and pages newest first with limit and before', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await withDashboard(queue, { credentials: { tokens: LABELLED }, auditMaxEntries: 3 }, async (d) => {
      const bob = await d.login(BOB);
      for (const action of ['pause', 'resume', 'pause', 'resume', 'pause']) expect((await d.call('POST', `api/queues/${queueName}/${action}`, { session: bob })).status).toBe(200);
      expect(await redis.xlen(queue.keys.audit)).toBe(3);
      const first = await d.call('GET', `api/queues/${queueName}/audit?limit=2`, { session: bob });
      expect(first.body.entries.map((entry: { action: string }) => entry.action)).toEqual(['pause', 'resume']);
      expect(first.body.next).toBe(first.body.entries[1].id);
      const second = await d.call('GET', `api/queues/${queueName}/audit?limit=2&before=${encodeURIComponent(first.body.next)}`, { session: bob });
      expect(second.body).toMatchObject({ entries: [{ action: 'pause' }], next: null });
      for (const query of ['limit=0', 'limit=1001', 'limit=x', 'before=%2B']) expect((await d.call('GET', `api/queues/${queueName}/audit?${query}`, { session: bob })).status, query).toBe(400);
      expect((await d.call('GET', `api/queues/${queueName}-none/audit`, { session: bob })).status).toBe(404);
      expect((await d.call('GET', `api/queues/${queueName}/audit`)).status).toBe(401);
    });
  });

  test('an action whose trail cannot be written still answers, and the failure is logged', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const logged: string[] = [];
    const logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: (_fields: object, message?: string) => void logged.push(message ?? '') };
    // Something else (not a stream) holds the trail's key: XADD fails with WRONGTYPE.
    await redis.set(queue.keys.audit, 'not a stream');
    await withDashboard(queue, { credentials: { tokens: LABELLED }, logger }, async (d) => {
      const bob = await d.login(BOB);
      expect((await d.call('POST', `api/queues/${queueName}/pause`, { session: bob })).body).toMatchObject({ paused: true, count: 1 });
      expect(logged).toContain('dashboard could not record an action in the audit trail');
    });
    await redis.del(queue.keys.audit);
  });

  plainTest('every action gets its trail entry from its path and body alike: the id, kind, filter and first 20 ids, and bulk:<action>', () => {
    const ids = Array.from({ length: 25 }, (_, n) => `job-${n}`);
    expect(auditTargetOf(undefined, { action: 'retry', ids, filter: { state: 'failed', kind: 'email' }, expected: 25 })).toEqual({ filter: { state: 'failed', kind: 'email' }, ids: ids.slice(0, 20) });
    expect(auditTargetOf('job-1', { priority: 5 })).toEqual({ id: 'job-1' });
    expect(auditTargetOf(undefined, { kind: 'email', ids: 'not a list', filter: 'not an object' })).toEqual({ kind: 'email' });
    expect(auditActionOf('bulk', { action: 'priority' })).toBe('bulk:priority');
    expect(auditActionOf('bulk', { action: 'Not An Action!' })).toBe('bulk');
    // Only bulk names a sub-action: another route's body cannot rename what it did.
    expect(auditActionOf('purge', { action: 'nothing' })).toBe('purge');
  });
});
