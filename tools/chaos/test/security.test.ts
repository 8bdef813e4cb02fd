import { readFileSync } from 'node:fs';
import { startRedisServer } from '@jobs/dev-redis';
import { createProducer, defineKinds } from '@jobs/producer';
import { createReclaimer, Queue, jobsAclRules, jobsOperatorAclRules, jsonLogger } from '@jobs/reclaimer';
import { isClusterRun, onEveryNode, redisTest as test, urlWithUser } from '@jobs/testing';
import { createWorker, type Logger } from '@jobs/worker';
import { describe, expect } from 'vitest';

const kinds = defineKinds({ note: { schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } } });

function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: jsonLogger({ level: 'debug', write: (line) => lines.push(line) }), lines };
}

describe('security', () => {
  test('an ACL user limited to one queue runs producer, worker, reclaimer and admin on it, and nothing else; the operator purges it', async ({ redis, redisUrl, queueName }) => {
    const user = `app-${queueName}`;
    const password = `pw-${queueName}-secret`;
    const operator = `operator-${queueName}`;
    // A cluster does not share its users: every node (replicas too) must know this one.
    await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'on', `>${password}`, ...jobsAclRules([queueName])));
    await onEveryNode(redis, (node) => node.acl('SETUSER', operator, 'on', `>${password}`, ...jobsOperatorAclRules()));
    const url = urlWithUser(redisUrl, user, password);
    const { logger, lines } = capture();
    const producer = createProducer({ redis: url, queue: queueName, kinds });
    const worker = createWorker({ redis: url, queue: queueName, kinds, logger, visibilityMs: 1_000, reclaimIntervalMs: 100, handlers: { note: ({ text }) => text.toUpperCase() } });
    const reclaimer = createReclaimer({ redis: url, queues: [queueName], logger });
    try {
      const id = await producer.enqueue('note', { text: 'hello' });
      expect(await producer.waitForResult(id)).toBe('HELLO');
      const [report] = await reclaimer.runOnce();
      expect(report?.queue).toBe(queueName);
      const admin = new Queue({ redis: url, queue: queueName, kinds });
      expect((await admin.list('completed')).map((job) => job.id)).toEqual([id]);
      // Purging lists keys with SCAN, which shows every tenant's: the operator's, not the tenant's.
      await expect(admin.purge()).rejects.toMatchObject({ code: 'JOBS_REDIS_NOPERM', message: expect.stringContaining("operator's user") });
      // So is finding the queues: a tenant's reclaimer names them, and says so when it does not.
      const discovering = createReclaimer({ redis: url, logger });
      await discovering.runOnce();
      await discovering.stop();
      expect(lines.join('\n')).toContain('name the queues');
      await admin.close();
      const operatorQueue = new Queue({ redis: urlWithUser(redisUrl, operator, password), queue: queueName, kinds });
      expect(await operatorQueue.purge()).toBeGreaterThan(0);
      await operatorQueue.close();
      // Another queue's keys are out of reach.
      const other = createProducer({ redis: url, queue: `${queueName}-other`, kinds });
      await expect(other.enqueue('note', { text: 'x' })).rejects.toMatchObject({ code: 'JOBS_REDIS_NOPERM', message: expect.stringMatching(/NOPERM/) });
      await other.close();
      expect(lines.join('\n')).not.toContain(password);
    } finally {
      await Promise.all([worker.close(), producer.close(), reclaimer.stop()]);
      await onEveryNode(redis, (node) => node.acl('DELUSER', user, operator));
    }
  });

  test('the ACL lines in docs/RELIABILITY.md are the ones jobsAclRules and jobsOperatorAclRules make', () => {
    const doc = readFileSync(new URL('../../../docs/RELIABILITY.md', import.meta.url), 'utf8');
    expect(doc).toContain(`ACL SETUSER mail-app on >PASSWORD ${jobsAclRules(['mail']).join(' ')}`);
    expect(doc).toContain(`ACL SETUSER jobs-operator on >PASSWORD ${jobsOperatorAclRules().join(' ')}`);
  });

  // Starts a TLS redis-server of its own: a cluster run would only repeat it.
  test.skipIf(isClusterRun())('producer, worker and reclaimer work over TLS with a test certificate', async () => {
    const server = await startRedisServer({ name: 'tls-all', tls: true });
    const redis = { host: '127.0.0.1', port: server.port, tls: { ca: server.tlsCa } };
    const producer = createProducer({ redis, queue: 'secure', kinds });
    const worker = createWorker({ redis, queue: 'secure', kinds, handlers: { note: ({ text }) => `${text}!` } });
    const reclaimer = createReclaimer({ redis, queues: ['secure'] });
    try {
      const id = await producer.enqueue('note', { text: 'over tls' });
      expect(await producer.waitForResult(id)).toBe('over tls!');
      expect((await reclaimer.runOnce())[0]?.stats.completedTotal).toBe(1);
      expect((await reclaimer.healthy()).ok).toBe(true);
    } finally {
      await Promise.all([worker.close(), producer.close(), reclaimer.stop()]);
      await server.stop();
    }
  });

  test('a wrong password is a clear error that does not repeat the password', async ({ redisUrl, queueName }) => {
    const url = urlWithUser(redisUrl, 'nobody', 'wrong-horse-battery');
    const producer = createProducer({ redis: url, queue: queueName, kinds, commandTimeoutMs: 1_000 });
    const error = await producer.enqueue('note', { text: 'x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'JOBS_REDIS_AUTH', message: expect.stringMatching(/WRONGPASS/) });
    const { inspect } = await import('node:util');
    expect(inspect(error, { depth: 10 })).not.toContain('wrong-horse-battery');
    expect(JSON.stringify(error)).not.toContain('wrong-horse-battery');
    await producer.close();
  });
});
