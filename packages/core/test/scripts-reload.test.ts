import { redisNodes, redisTest as test, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import type { ClaimedJob } from '../src/index.ts';
import { openQueue } from './fixtures.ts';

/** SCRIPT FLUSH on the server, or on every master of a cluster: wherever the queue's scripts run. */
async function flushScripts(redis: TestRedis): Promise<void> {
  for (const node of await redisNodes(redis)) await node.script('FLUSH');
}

describe('script loading', () => {
  test('after SCRIPT FLUSH (a restart or failover) every verb still works: NOSCRIPT falls back to EVAL', async ({ redis, queueName }) => {
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
});
