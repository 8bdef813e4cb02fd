import { onEveryNode, redisNodes, redisTest as test, scriptsMode, urlWithUser, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { Queue, type ClaimedJob } from '../src/index.ts';
import { kinds, openQueue } from './fixtures.ts';

/** SCRIPT FLUSH and FUNCTION FLUSH on the server, or on every master of a cluster: wherever the queue's scripts run. */
async function flushScripts(redis: TestRedis): Promise<void> {
  for (const node of await redisNodes(redis)) {
    await node.script('FLUSH');
    await node.call('FUNCTION', 'FLUSH');
  }
}

/** Script calls the servers ran since the last CONFIG RESETSTAT, by command. */
async function scriptCalls(redis: TestRedis): Promise<{ fcall: number; evalsha: number }> {
  const counts = { fcall: 0, evalsha: 0 };
  for (const node of await redisNodes(redis)) {
    const info = await node.info('commandstats');
    counts.fcall += Number(/cmdstat_fcall:calls=(\d+)/.exec(info)?.[1] ?? 0);
    counts.evalsha += Number(/cmdstat_evalsha:calls=(\d+)/.exec(info)?.[1] ?? 0);
  }
  return counts;
}

// Through EVALSHA (JOBS_TEST_SCRIPTS=eval) the run's user may not touch functions: the tests of
// the function library itself run in the default pass.
const functionsPass = scriptsMode() === 'functions';

describe('script loading', () => {
  test.runIf(functionsPass)('after FUNCTION FLUSH and SCRIPT FLUSH (a restart or failover) every verb still works: the library is loaded again', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { recipient: 'a@example.com' });
    await queue.enqueue('email', { recipient: 'b@example.com' });
    await flushScripts(redis);
    const [job] = (await queue.claim()) as [ClaimedJob];
    await flushScripts(redis);
    const { completed, next } = await queue.completeAndClaim(job, 'ok');
    expect(completed).toBe(true);
    await flushScripts(redis);
    expect(await queue.fail(next[0] as ClaimedJob, 'x', { permanent: true })).toBe('failed');
    await flushScripts(redis);
    expect(await queue.stats()).toMatchObject({ completedTotal: 1, failedTotal: 1 });
    await queue.close();
  });

  test.runIf(functionsPass)('the verbs run as functions of the library: FCALL, no EVALSHA', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { recipient: 'a@example.com' });
    for (const node of await redisNodes(redis)) await node.config('RESETSTAT');
    const [job] = (await queue.claim()) as [ClaimedJob];
    await queue.complete(job, 'ok');
    expect(await scriptCalls(redis)).toEqual({ fcall: 2, evalsha: 0 });
    await queue.close();
  });

  test('a Redis user without FCALL and FUNCTION LOAD gets every verb through EVALSHA instead', async ({ redis, redisUrl, queueName }) => {
    const user = `nofn-${queueName}`.replace(/[^A-Za-z0-9-]/g, '');
    // A cluster does not share its users: every node (replicas too) must know this one.
    await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'on', '>pw-for-test', '~*', '&*', '+@all', '-fcall', '-function'));
    const queue = new Queue({ redis: urlWithUser(redisUrl, user, 'pw-for-test'), queue: queueName, kinds });
    const nodes = await redisNodes(redis);
    try {
      await queue.enqueue('email', { recipient: 'a@example.com' });
      for (const node of nodes) await node.config('RESETSTAT');
      const [job] = (await queue.claim()) as [ClaimedJob];
      await queue.complete(job, 'ok');
      expect(await queue.stats()).toMatchObject({ completedTotal: 1 });
      expect((await scriptCalls(redis)).evalsha).toBe(3);
    } finally {
      await queue.close();
      await onEveryNode(redis, (node) => node.acl('DELUSER', user));
    }
  });
});
