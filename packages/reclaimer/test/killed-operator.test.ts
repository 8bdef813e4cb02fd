import { defineKinds, Queue } from '@jobs/core';
import { isScriptCall, isUnparkCall, killOperatorAt, redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { BIN, runCli, startDaemon } from './cli.ts';

// An operator's resume or retry-all SIGKILLed halfway through its batches: every job stays
// counted and listed, and the daemon's next sweep (or the next retry-all) finishes the move.

const kinds = defineKinds({ task: { schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } });
const JOBS = 300;

describe('an operator killed halfway', () => {
  test("a resume SIGKILLed after 100 of its 300 batches: the rest stay counted, and the daemon's sweep moves them back", async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.pause({ kind: 'task' });
    await queue.enqueueMany(Array.from({ length: JOBS }, (_, n) => ({ kind: 'task' as const, payload: { n } })));
    expect(await queue.claim({ max: JOBS })).toHaveLength(0);
    await killOperatorAt(redisUrl, redis, { operation: 'resume', queue: queueName, kind: 'task', match: isUnparkCall, nth: 100 });
    // The resume and 99 batches ran: 100 back, 200 still parked, all of them counted and listed.
    const before = await queue.stats();
    expect(before).toMatchObject({ pendingDepth: 100, parkedDepth: 200, waitingDepth: JOBS, pausedKinds: [] });
    expect(await queue.list('waiting', { limit: 1_000 })).toHaveLength(JOBS);
    const daemon = startDaemon(['--queue', queueName, '--once', '--batch', '50'], { REDIS_URL: redisUrl });
    expect(await daemon.exited).toBe(0);
    expect(daemon.logs().find((line) => line.msg === 'swept')).toMatchObject({ queue: queueName, unparked: 200 });
    expect(await queue.stats()).toMatchObject({ pendingDepth: JOBS, parkedDepth: 0 });
    let ran = 0;
    for (let jobs = await queue.claim({ max: 100 }); jobs.length > 0; jobs = await queue.claim({ max: 100 })) {
      await queue.completeMany(jobs.map((job) => ({ job, result: null })));
      ran += jobs.length;
    }
    expect(ran).toBe(JOBS);
    await queue.close();
  });

  test('a retry-all SIGKILLed after 100 of its 300 batches: the rest stay failed and counted, and the next retry-all redrives them', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, maxAttempts: 1 });
    await queue.enqueueMany(Array.from({ length: JOBS }, (_, n) => ({ kind: 'task' as const, payload: { n } })));
    for (const job of await queue.claim({ max: JOBS })) await queue.fail(job, new Error('boom'), { permanent: true });
    expect((await queue.stats()).failedDepth).toBe(JOBS);
    // retryFailed reads a batch of ids, then redrives them: the 101st redrive never reaches Redis.
    await killOperatorAt(redisUrl, redis, { operation: 'retry-all', queue: queueName, kind: 'task', match: isScriptCall, nth: 101 });
    expect(await queue.stats()).toMatchObject({ failedDepth: 200, pendingDepth: 100 });
    const again = await runCli(BIN.jobsctl, ['retry', '--all-failed', '-q', queueName], { REDIS_URL: redisUrl });
    expect(again.code).toBe(0);
    expect(await queue.stats()).toMatchObject({ failedDepth: 0, pendingDepth: JOBS, redrivenTotal: JOBS });
    await queue.close();
  });
});
