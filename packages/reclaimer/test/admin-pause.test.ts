import { fileURLToPath } from 'node:url';
import { defineKinds, Queue } from '@jobs/core';
import { queueKeysIn, redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { partitionQueues } from '../src/admin/partition-queues.ts';
import { BIN, runCli } from './cli.ts';

const kinds = defineKinds({
  task: { schema: { type: 'object', properties: { n: { type: 'integer' } } } },
  other: { schema: { type: 'object' } },
});
/** The kinds module of the schedules tests: it defines `email` and `digest`. */
const KINDS_MODULE = fileURLToPath(new URL('fixtures/mail-kinds.mjs', import.meta.url));

describe('jobsctl pause and resume (run as a child process)', () => {
  test('pause: a claim then starts nothing, enqueues go on, stats says paused; resume: the claim takes the jobs', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    await queue.enqueue('task', { n: 1 });
    const paused = await runCli(BIN.jobsctl, ['pause'], env);
    expect(paused).toMatchObject({ code: 0, stdout: `paused queue ${queueName}: workers start no new job of it; running jobs finish and enqueues go on\n` });
    await queue.enqueue('task', { n: 2 });
    expect(await queue.claim({ max: 5 })).toEqual([]);
    const stats = await runCli(BIN.jobsctl, ['stats'], env);
    // The admission state (pauses) comes first, then where the jobs are.
    expect(stats.stdout).toMatch(/^paused\s+yes: workers start none of its jobs \(jobsctl resume\)\npausedKinds\s+-\npendingDepth\s+2\n/);
    expect(JSON.parse((await runCli(BIN.jobsctl, ['stats', '--json'], env)).stdout)).toMatchObject({ paused: true, pausedKinds: [], pendingDepth: 2 });
    expect((await runCli(BIN.jobsctl, ['queues'], env)).stdout).toMatch(new RegExp(`^${queueName}\\s+2\\s+0\\s+0\\s+0\\s+0\\s+\\S+\\s+0\\s+0\\s+yes$`, 'm'));
    // Again: nothing changes, and it says so.
    expect(JSON.parse((await runCli(BIN.jobsctl, ['pause', '--json'], env)).stdout)).toEqual({ queue: queueName, kind: null, paused: true, changed: false });

    const resumed = await runCli(BIN.jobsctl, ['resume', '--json'], env);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toEqual({ queue: queueName, kind: null, paused: false, changed: true });
    expect(await queue.claim({ max: 5 })).toHaveLength(2);
    expect(await runCli(BIN.jobsctl, ['resume'], env)).toMatchObject({ code: 0, stdout: `queue ${queueName} was not paused\n` });
    await queue.close();
  });

  test('pause --kind parks that kind only; stats shows the paused kind and the parked jobs; resume --kind puts them back first', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const tasks = [await queue.enqueue('task', { n: 1 }), await queue.enqueue('task', { n: 2 })];
    const other = await queue.enqueue('other', {});
    expect((await runCli(BIN.jobsctl, ['pause', '--kind', 'task'], env)).stdout).toBe(`paused kind task of queue ${queueName}: workers start no new job of it; running jobs finish and enqueues go on\n`);
    expect((await queue.claim({ max: 5 })).map((job) => job.id)).toEqual([other]);
    const stats = await runCli(BIN.jobsctl, ['stats'], env);
    expect(stats.stdout).toMatch(/^paused\s+no\npausedKinds\s+task\npendingDepth\s+0\nprioritizedDepth\s+0\nparkedDepth\s+2\n/);
    expect((await runCli(BIN.jobsctl, ['queues'], env)).stdout).toMatch(new RegExp(`^${queueName}\\s.*\\s2\\s+kinds: task$`, 'm'));

    const resumed = await runCli(BIN.jobsctl, ['resume', '--kind', 'task'], env);
    expect(resumed).toMatchObject({ code: 0, stdout: `resumed kind task of queue ${queueName}: 2 parked job(s) back in line\n` });
    expect((await queue.claim({ max: 5 })).map((job) => job.id)).toEqual(tasks);
    expect(await queue.stats()).toMatchObject({ pausedKinds: [], parkedDepth: 0 });
    await queue.close();
  });

  test('stats shows the prioritized jobs and the expired total; ls waiting lists them in the order they start', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('task', { n: 1 });
    await queue.enqueue('task', { n: 2 }, { priority: 5 });
    await queue.enqueue('task', { n: 3 }, { expiresAt: 1 });
    // The high priority job first; the expired one is failed by the claim that meets it.
    expect((await queue.claim({ max: 1 }))[0]?.payload).toMatchObject({ n: 2 });
    await queue.enqueue('task', { n: 4 }, { priority: 5 });
    await queue.claim({ max: 3 });
    await queue.enqueue('task', { n: 5 });
    await queue.enqueue('task', { n: 6 }, { priority: -5 });
    const stats = await runCli(BIN.jobsctl, ['stats', '-q', queueName], { REDIS_URL: redisUrl });
    expect(stats.stdout).toMatch(/^pendingDepth\s+1\nprioritizedDepth\s+1\n/m);
    expect(stats.stdout).toMatch(/^expiredTotal\s+1$/m);
    expect(JSON.parse((await runCli(BIN.jobsctl, ['stats', '-q', queueName, '--json'], { REDIS_URL: redisUrl })).stdout)).toMatchObject({ prioritizedDepth: 1, parkedDepth: 0, waitingDepth: 2, expiredTotal: 1 });
    const waiting = JSON.parse((await runCli(BIN.jobsctl, ['ls', 'waiting', '-q', queueName, '--json'], { REDIS_URL: redisUrl })).stdout) as { payload: { n: number } }[];
    expect(waiting.map((job) => job.payload.n)).toEqual([5, 6]);
    await queue.close();
  });

  test('a partitioned queue: pause and resume reach every partition, and stats says when only some are paused', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 3 });
    await queue.enqueueMany([0, 1, 2, 3, 4, 5].map((n) => ({ kind: 'task' as const, payload: { n }, options: { partitionKey: `k${n}` } })));
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    expect((await runCli(BIN.jobsctl, ['pause'], env)).code).toBe(0);
    for (const partition of queue.partitions) expect(await partition.claim({ max: 10 })).toEqual([]);
    expect((await runCli(BIN.jobsctl, ['stats'], env)).stdout).toMatch(/^partitions\s+3\npaused\s+yes/);
    // A pause cut short: one partition running.
    await partitionQueues(queue)[1]?.resume();
    const partly = await runCli(BIN.jobsctl, ['stats'], env);
    expect(partly.stdout).toMatch(/^paused\s+partly: partitions 0, 2 of 3 \(run jobsctl pause or resume again\)$/m);
    expect(JSON.parse((await runCli(BIN.jobsctl, ['stats', '--json'], env)).stdout)).toMatchObject({ partitions: 3, pausedPartitions: 2, paused: true });
    expect(JSON.parse((await runCli(BIN.jobsctl, ['resume', '--json'], env)).stdout)).toMatchObject({ paused: false, changed: true });
    let claimed = 0;
    for (const partition of queue.partitions) claimed += (await partition.claim({ max: 10 })).length;
    expect(claimed).toBe(6);
    await queue.close();
  });

  test('a kind the queue does not know: exit code 1, the kinds it has (the closest first), and nothing paused', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('task', { n: 1 });
    await queue.enqueue('other', {});
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const typo = await runCli(BIN.jobsctl, ['pause', '--kind', 'tsak'], env);
    expect(typo.code).toBe(1);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toContain(`queue "${queueName}" has no kind "tsak"; did you mean "task"?`);
    expect(typo.stderr).toMatch(/kinds seen in its jobs and schedules .*: task, other\n$/);
    const typoJson = await runCli(BIN.jobsctl, ['pause', '--kind', 'tsak', '--json'], env);
    expect(JSON.parse(typoJson.stderr)).toEqual({ error: 'unknown_kind', queue: queueName, kind: 'tsak', kinds: ['task', 'other'] });
    // Resuming a kind that is not paused.
    const notPaused = await runCli(BIN.jobsctl, ['resume', '--kind', 'other'], env);
    expect(notPaused).toMatchObject({ code: 1, stdout: '', stderr: `kind other of queue ${queueName} is not paused\nits paused kinds: none\n` });
    expect(await queue.stats()).toMatchObject({ paused: false, pausedKinds: [] });

    // With --kinds the kind is checked against the code's kinds: one with no job yet can be paused.
    const fromModule = await runCli(BIN.jobsctl, ['pause', '--kind', 'digest', '--kinds', KINDS_MODULE], env);
    expect(fromModule.code).toBe(0);
    const notInModule = await runCli(BIN.jobsctl, ['pause', '--kind', 'task', '--kinds', KINDS_MODULE], env);
    expect(notInModule.code).toBe(1);
    expect(notInModule.stderr).toMatch(/has no kind "task"\nits kinds \(--kinds\): (email, digest|digest, email)\n/);
    expect(await queue.stats()).toMatchObject({ pausedKinds: ['digest'] });
    await queue.close();
  });

  test('pause and resume: wrong arguments exit 2, an unknown queue exits 1 and writes nothing', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('task', { n: 1 });
    const cases: [string[], RegExp, string][] = [
      [['pause'], /pause needs --queue NAME/, 'jobsctl pause --help'],
      [['resume', '-q', 'q', '--kind', 'no kind!'], /--kind: "no kind!" is not a kind name/, 'jobsctl resume --help'],
      [['pause', '-q', 'q', '--kinds', KINDS_MODULE], /--kinds checks --kind/, 'jobsctl pause --help'],
      [['pause', '-q', 'q', '--kind', 'email', '--kinds', 'no-such-file.mjs'], /--kinds: cannot load no-such-file\.mjs: no such module/, 'jobsctl pause --help'],
    ];
    for (const [args, message, hint] of cases) {
      const run = await runCli(BIN.jobsctl, args, { REDIS_URL: redisUrl });
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain(`Run ${hint} for the options.`);
    }
    const typo = `${queueName}x`;
    for (const args of [['pause', '-q', typo], ['resume', '-q', typo, '--kind', 'task']]) {
      const run = await runCli(BIN.jobsctl, args, { REDIS_URL: redisUrl });
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain(`jobsctl: no queue "${typo}" in Redis at `);
      expect(run.stderr).toContain(`did you mean "${queueName}"?`);
    }
    expect(await queueKeysIn(redis, typo)).toEqual([]);
    await queue.close();
  });

  test('pause and resume have their own --help, which says what a pause holds', async () => {
    const pause = await runCli(BIN.jobsctl, ['pause', '--help']);
    expect(pause.code).toBe(0);
    expect(pause.stdout).toMatch(/^Usage: jobsctl pause \[options\]/);
    expect(pause.stdout).toMatch(/--kind <kind>/);
    expect(pause.stdout).toMatch(/--kinds <file>/);
    expect(pause.stdout).toMatch(/holds across worker and Redis restarts/);
    const resume = await runCli(BIN.jobsctl, ['help', 'resume']);
    expect(resume.stdout).toMatch(/^Usage: jobsctl resume \[options\]/);
    expect(resume.stdout).not.toMatch(/--kinds/);
    const all = await runCli(BIN.jobsctl, ['--help']);
    for (const command of ['pause', 'resume', 'schedules']) expect(all.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  });
});
