import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { AUDIT_TARGET_MAX_CHARS, isJobsError, Queue, queueKeys, type RedisClient } from '../src/index.ts';
import { kinds, openQueue } from './fixtures.ts';

/** Redis time, ms, read on the node that holds `key`. */
async function redisNow(redis: RedisClient, key: string): Promise<number> {
  return Number(await redis.eval("local t = redis.call('TIME') return t[1] * 1000 + math.floor(t[2] / 1000)", 1, key));
}

describe('audit trail', () => {
  test('entries read back newest first with who, what, target and count, timed by the Redis clock, paged by next', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const before = await redisNow(redis, queue.keys.audit);
    for (let n = 0; n < 5; n += 1) await queue.recordAudit({ role: 'operator', label: `alice-${n}`, action: 'retry', target: { id: `job-${n}` }, count: 1 });
    await queue.recordAudit({ role: 'cli', label: 'ops@box-1', action: 'purge', count: 1, error: 'conflict' });
    await queue.recordAudit({ role: 'operator', label: 'José 李', action: 'pause', count: 1 });
    const after = await redisNow(redis, queue.keys.audit);
    const first = await queue.auditTrail({ limit: 5 });
    expect(first.entries.map((entry) => entry.who.label)).toEqual(['José 李', 'ops@box-1', 'alice-4', 'alice-3', 'alice-2']);
    expect(first.entries[1]).toMatchObject({ who: { role: 'cli', label: 'ops@box-1' }, action: 'purge', target: {}, count: 1, error: 'conflict' });
    expect(first.entries[2]).toMatchObject({ action: 'retry', target: { id: 'job-4' }, count: 1 });
    expect(first.entries[2]).not.toHaveProperty('error');
    for (const entry of first.entries) {
      expect(entry.atMs).toBeGreaterThanOrEqual(before);
      expect(entry.atMs).toBeLessThanOrEqual(after);
    }
    expect(first.next).toBe(first.entries[4]?.id);
    const second = await queue.auditTrail({ limit: 5, before: first.next as string });
    expect(second.entries.map((entry) => entry.who.label)).toEqual(['alice-1', 'alice-0']);
    expect(second.next).toBeNull();
    await queue.close();
  });

  test('the trail keeps its newest maxEntries entries', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    for (let n = 0; n < 8; n += 1) await queue.recordAudit({ role: 'operator', label: 'op', action: 'cancel', target: { id: `j${n}` }, count: 1 }, { maxEntries: 5 });
    expect(await redis.xlen(queue.keys.audit)).toBe(5);
    const page = await queue.auditTrail({ limit: 100 });
    expect(page.entries.map((entry) => entry.target.id)).toEqual(['j7', 'j6', 'j5', 'j4', 'j3']);
    await queue.close();
  });

  test('a purge deletes every key of the queue but its audit trail, and the purge itself can be recorded after', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { recipient: 'a@example.com' });
    await queue.recordAudit({ role: 'operator', label: 'op', action: 'pause', count: 1 });
    expect(await queue.purge()).toBeGreaterThan(0);
    await queue.recordAudit({ role: 'operator', label: 'op', action: 'purge', count: 1 });
    expect((await queue.auditTrail()).entries.map((entry) => entry.action)).toEqual(['purge', 'pause']);
    expect(await queue.stats()).toMatchObject({ pendingDepth: 0 });
    await queue.close();
  });

  test('a partitioned queue keeps its trail in partition 0', async ({ redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 3 });
    await queue.recordAudit({ role: 'operator', label: 'op', action: 'resume', count: 1 });
    expect(await redis.xlen(queueKeys(`${queueName}:p0`).audit)).toBe(1);
    expect(await redis.exists(queueKeys(`${queueName}:p1`).audit)).toBe(0);
    expect((await queue.auditTrail()).entries).toHaveLength(1);
    await queue.close();
  });

  test('a long target is clipped to valid JSON that keeps the id and kind', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const filter = { state: 'failed', field: 'user.name', value: '"\\'.repeat(2_000) };
    await queue.recordAudit({ role: 'operator', label: 'op', action: 'bulk:retry', target: { kind: 'email', filter }, count: 0 });
    const [stored] = await redis.xrange(queue.keys.audit, '-', '+');
    const text = (stored?.[1] as string[])[(stored?.[1] as string[]).indexOf('target') + 1] as string;
    expect(text.length).toBeLessThanOrEqual(AUDIT_TARGET_MAX_CHARS);
    const [entry] = (await queue.auditTrail()).entries;
    expect(entry?.target).toMatchObject({ kind: 'email', clipped: true });
    expect(typeof entry?.target.filter).toBe('string');
    await queue.close();
  });

  test('bad records and bad reads throw JOBS_INVALID_ARGUMENT naming the field, writing nothing', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    const good = { role: 'operator', label: 'op', action: 'retry', count: 1 };
    const bad: [string, unknown][] = [
      ['role', { ...good, role: '' }],
      ['label', { ...good, label: 'x'.repeat(65) }],
      ['label', { ...good, label: 'tab\there' }],
      ['label', { ...good, label: 'right-to-left \u202e override' }],
      ['action', { ...good, action: 'no spaces' }],
      ['count', { ...good, count: -1 }],
      ['count', { ...good, count: 1.5 }],
      ['target', { ...good, target: [] }],
      ['error', { ...good, error: 'bad code!' }],
    ];
    for (const [field, record] of bad) {
      const error = await queue.recordAudit(record as never).catch((caught: unknown) => caught);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT') && error.field === field, `${field}: ${String(error)}`).toBe(true);
    }
    for (const [field, options] of [['limit', { limit: 0 }], ['limit', { limit: 1_001 }], ['before', { before: '+' }], ['maxEntries', undefined]] as const) {
      const call = field === 'maxEntries' ? queue.recordAudit(good, { maxEntries: 0 }) : queue.auditTrail(options as never);
      const error = await call.catch((caught: unknown) => caught);
      expect(isJobsError(error, 'JOBS_INVALID_ARGUMENT') && error.field === field, field).toBe(true);
    }
    expect(await redis.exists(queue.keys.audit)).toBe(0);
    await queue.close();
  });
});
