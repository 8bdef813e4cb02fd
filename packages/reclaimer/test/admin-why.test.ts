import { defineKinds, Queue } from '@jobs/core';
import { redisTest as test } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { relativeTime } from '@jobs/core/internal';
import { BIN, runCli } from './cli.ts';

const kinds = defineKinds({ task: { schema: { type: 'object', properties: { n: { type: 'integer' } } } } });

const iso = (ms: number | undefined): string => new Date(ms ?? Number.NaN).toISOString().replace(/\./g, '\\.');

describe('jobsctl why (run as a child process)', () => {
  test('says why a job waits (the cap and the job holding it, parked, a pause since when) and who runs the one running', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, eventLog: true, workerId: 'w-9' });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    await queue.setLimits({ kinds: { task: { concurrency: 1 } } });
    const first = await queue.enqueue('task', { n: 1 });
    const second = await queue.enqueue('task', { n: 2 });
    const [running] = await queue.claim({ max: 10 });
    expect(running?.id).toBe(first);

    const waiting = await runCli(BIN.jobsctl, ['why', second], env);
    expect(waiting.code).toBe(0);
    const lines = waiting.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`${second} (task): pending`);
    expect(waiting.stdout).toMatch(new RegExp(`^  - kind task may run 1 at a time, and its slots are held by ${first}; a slot frees at ${iso(running?.leaseExpiresAtMs)} \\([^)]+\\)$`, 'm'));
    expect(waiting.stdout).toMatch(/^ {2}- parked: set aside while kind task is paused or limited, 0 jobs of the kind before it$/m);
    expect(waiting.stdout).toMatch(/^ {2}- no live worker handles kind task \(0 workers are alive for other kinds\)$/m);

    const json = JSON.parse((await runCli(BIN.jobsctl, ['why', second, '--json'], env)).stdout) as { id: string; status: string; reasons: unknown[] };
    expect(json).toMatchObject({ id: second, status: 'pending', kind: 'task' });
    expect(json.reasons).toEqual((await queue.why(second))?.reasons);

    const runs = await runCli(BIN.jobsctl, ['why', first], env);
    expect(runs.stdout).toMatch(new RegExp(`^  - running: claimed by worker w-9 at ${iso(running?.claimedAtMs)} \\([^)]+\\), its lease (until|ended at) ${iso(running?.leaseExpiresAtMs)} \\([^)]+\\)`, 'm'));

    await queue.pause();
    const since = (await queue.why(second))?.reasons.find((reason) => reason.code === 'queue-paused');
    expect(since).toBeDefined();
    const paused = await runCli(BIN.jobsctl, ['why', second], env);
    expect(paused.stdout).toMatch(new RegExp(`^  - the queue is paused since ${iso((since as { sinceMs: number }).sinceMs)} \\((now|\\d+ \\w+ ago)\\): jobsctl resume$`, 'm'));
    await queue.close();
  });

  test('a delayed job says until when; an unknown id exits 1 with a clear message', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const later = await queue.enqueue('task', { n: 1 }, { delayMs: 3_600_000 });
    const runAt = (await queue.getJob(later))?.runAtMs;
    const delayed = await runCli(BIN.jobsctl, ['why', later], env);
    expect(delayed.stdout).toMatch(new RegExp(`^  - delayed until ${iso(runAt)} \\(in (\\d+ min|1 h)\\)$`, 'm'));
    const missing = await runCli(BIN.jobsctl, ['why', 'ffffffffffffffff'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(new RegExp(`no job ffffffffffffffff in ${queueName}`));
    expect(missing.stdout).toBe('');
    const bad = await runCli(BIN.jobsctl, ['why', 'bad id!'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/is not a job id/);
    await queue.close();
  });

  test('why has its own --help', async () => {
    const help = await runCli(BIN.jobsctl, ['why', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: jobsctl why \[options\] <id>/);
    expect(help.stdout).toMatch(/changes nothing/);
    expect((await runCli(BIN.jobsctl, ['--help'])).stdout).toMatch(/^ {2}why\b/m);
  });

  test('relative times read as people say them', () => {
    expect(relativeTime(4_200, 0)).toBe('in 4 s');
    expect(relativeTime(0, 180_000)).toBe('3 min ago');
    expect(relativeTime(500, 0)).toBe('now');
    expect(relativeTime(7_200_000, 0)).toBe('in 2 h');
  });
});
