import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import type { ClaimedJob } from '../src/index.ts';
import { openQueue } from './fixtures.ts';

describe('script loading', () => {
  test('after SCRIPT FLUSH (a restart or failover) every verb still works: NOSCRIPT falls back to EVAL', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName);
    await queue.enqueue('email', { recipient: 'a@example.com' });
    await queue.enqueue('email', { recipient: 'b@example.com' });
    await redis.script('FLUSH');
    const [job] = (await queue.claim()) as [ClaimedJob];
    await redis.script('FLUSH');
    const { completed, next } = await queue.completeAndClaim(job, 'ok');
    expect(completed).toBe(true);
    await redis.script('FLUSH');
    expect(await queue.fail(next[0] as ClaimedJob, 'x', { permanent: true })).toBe('failed');
    await redis.script('FLUSH');
    expect(await queue.stats()).toMatchObject({ completedTotal: 1, failedTotal: 1 });
    await queue.close();
  });
});
