import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import type { ClaimedJob } from '../src/index.ts';
import { openQueue } from './fixtures.ts';

describe('hand-written garbage in the keys', () => {
  test('a job key that is not a hash is dropped by claim and by reclaim; views and stats keep working', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 60_000 });
    const key = (id: string): string => `queue:{${queueName}}:job:${id}`;
    await redis.set(key('junk1'), 'not a hash');
    await redis.rpush(`queue:{${queueName}}:pending`, 'junk1');
    await redis.set(key('junk2'), 'not a hash either');
    await redis.lpush(`queue:{${queueName}}:processing`, 'junk2');
    await redis.lpush(`queue:{${queueName}}:completed`, 'junk3');
    await redis.set(key('junk3'), '3');
    expect(await queue.list('pending')).toEqual([]);
    expect((await queue.stats()).pendingDepth).toBe(1);
    const real = await queue.enqueue('email', { recipient: 'a@example.com' });
    expect((await queue.claim({ max: 5 })).map((job) => job.id)).toEqual([real]);
    expect((await queue.reclaimStuck()).dropped).toEqual(['junk2']);
    expect(await queue.tidyHistory()).toEqual({ completed: 1, failed: 0 });
    expect(await queue.stats()).toMatchObject({ processingDepth: 1, droppedTotal: 2 });
    await queue.close();
  });

  test('a hash with garbage numbers or missing fields is claimed with defaults and can fail with a reason', async ({ redis, queueName }) => {
    const queue = openQueue(redis, queueName, { visibilityMs: 1_000, maxAttempts: 2 });
    await redis.hset(`queue:{${queueName}}:job:weird`, { attempts: 'many', max_attempts: 'x', visibility_ms: 'soon', payload: '{oops' });
    await redis.lpush(`queue:{${queueName}}:pending`, 'weird');
    const [job] = (await queue.claim()) as [ClaimedJob];
    expect(job.id).toBe('weird');
    expect(job.leaseExpiresAtMs - job.claimedAtMs).toBe(1_000);
    expect(queue.kinds.decode(job.rawPayload)).toMatchObject({ ok: false, reason: expect.stringMatching(/not JSON/) });
    expect(await queue.fail(job, 'the payload is not JSON', { permanent: true })).toBe('failed');
    expect((await queue.getJob('weird'))?.lastError).toBe('the payload is not JSON');
    await queue.close();
  });
});
