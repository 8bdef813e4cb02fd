import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue, RedisScheduleStore, ScheduleRunner } from '@jobs/core';
import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { BIN, runCli } from './cli.ts';
// The same kinds the CLI imports with --kinds.
import { kinds } from './fixtures/mail-kinds.mjs';

const KINDS_MODULE = fileURLToPath(new URL('fixtures/mail-kinds.mjs', import.meta.url));
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/;

describe('jobsctl schedules (run as a child process)', () => {
  test('upsert, list, show, pause, resume and remove; next runs in ISO 8601, epoch ms with --json', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('email', { to: 'ops@example.com' });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const upsert = await runCli(BIN.jobsctl, ['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'digest', '--kind', 'email', '--payload', '{"to":"team@example.com"}', '--cron', '0 8 * * *', '--tz', 'Europe/Paris'], env);
    expect(upsert.code).toBe(0);
    const digest = await queue.schedules.get('digest');
    expect(digest).toMatchObject({ kind: 'email', payload: { to: 'team@example.com' }, cron: '0 8 * * *', tz: 'Europe/Paris', status: 'active' });
    expect(upsert.stdout).toBe(`created schedule digest of ${queueName}: next run ${new Date(digest?.nextRunAt as number).toISOString()}\n`);

    const dir = mkdtempSync(join(tmpdir(), 'jobsctl-schedules-'));
    try {
      const payloadFile = join(dir, 'payload.json');
      writeFileSync(payloadFile, '{"source":"feed"}');
      const startAt = new Date(Date.now() + 3_600_000).toISOString();
      const poll = await runCli(BIN.jobsctl, ['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'poll', '--kind', 'digest', '--payload-file', payloadFile, '--every', '30000', '--start-at', startAt, '--limit', '10', '--json'], env);
      expect(poll.code).toBe(0);
      expect(JSON.parse(poll.stdout)).toEqual({ queue: queueName, id: 'poll', created: true, nextRunAt: Date.parse(startAt) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const replaced = await runCli(BIN.jobsctl, ['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'digest', '--kind', 'email', '--payload', '{"to":"all@example.com"}', '--cron', '0 8 * * *', '--tz', 'Europe/Paris'], env);
    expect(replaced.stdout).toMatch(/^updated schedule digest of .*: next run /);
    expect((await queue.schedules.get('digest'))?.payload).toMatchObject({ to: 'all@example.com' });

    const list = await runCli(BIN.jobsctl, ['schedules', 'list'], env);
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+KIND\s+TIMING\s+STATUS\s+NEXT RUN\s+RUNS\s+LAST JOB$/);
    expect(lines[1]).toMatch(new RegExp(`^digest\\s+email\\s+cron 0 8 \\* \\* \\* Europe/Paris\\s+active\\s+${ISO.source}\\s+0\\s+-$`));
    expect(lines[2]).toMatch(new RegExp(`^poll\\s+digest\\s+every 30s\\s+active\\s+${ISO.source}\\s+0/10\\s+-$`));
    const listJson = JSON.parse((await runCli(BIN.jobsctl, ['schedules', 'list', '--json'], env)).stdout) as { id: string; nextRunAt: number }[];
    expect(listJson.map((s) => s.id)).toEqual(['digest', 'poll']);
    expect(listJson[0]?.nextRunAt).toBe((await queue.schedules.get('digest'))?.nextRunAt);

    const show = await runCli(BIN.jobsctl, ['schedules', 'show', 'poll'], env);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^timing\s+every 30s$/m);
    expect(show.stdout).toMatch(new RegExp(`^start_at\\s+${ISO.source}$`, 'm'));
    expect(show.stdout).toMatch(/^runs\s+0\/10$/m);
    expect(show.stdout).toMatch(/^payload\s+\{"kind":"digest","source":"feed"\}$/m);
    expect(JSON.parse((await runCli(BIN.jobsctl, ['schedules', 'show', 'poll', '--json'], env)).stdout)).toMatchObject({ id: 'poll', every: 30_000, limit: 10, runs: 0 });

    expect(await runCli(BIN.jobsctl, ['schedules', 'pause', 'digest'], env)).toMatchObject({ code: 0, stdout: `paused schedule digest of ${queueName}\n` });
    expect((await runCli(BIN.jobsctl, ['schedules', 'list'], env)).stdout).toMatch(/^digest\s+email\s+cron 0 8 \* \* \* Europe\/Paris\s+paused\s+-\s+0\s+-$/m);
    expect(await runCli(BIN.jobsctl, ['schedules', 'pause', 'digest'], env)).toMatchObject({ code: 0, stdout: `schedule digest of ${queueName} was already paused\n` });
    const resumed = await runCli(BIN.jobsctl, ['schedules', 'resume', 'digest', '--json'], env);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ id: 'digest', changed: true, status: 'active', nextRunAt: expect.any(Number) });
    expect((await queue.schedules.get('digest'))?.status).toBe('active');

    expect(await runCli(BIN.jobsctl, ['schedules', 'remove', 'poll'], env)).toMatchObject({ code: 0, stdout: `removed schedule poll of ${queueName} (the jobs it enqueued stay)\n` });
    expect((await queue.schedules.list()).map((s) => s.id)).toEqual(['digest']);
    await queue.close();
  });

  test('list shows the runs against the limit, the last job, and a schedule done once its limit is reached', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('digest', {});
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const startAt = String(Date.now() + 300);
    expect((await runCli(BIN.jobsctl, ['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'once', '--kind', 'digest', '--every', '1000', '--start-at', startAt, '--limit', '1'], env)).code).toBe(0);
    const runner = new ScheduleRunner({ store: new RedisScheduleStore(queue.client, queue.keys) });
    runner.start();
    try {
      await waitFor(async () => (await queue.schedules.get('once'))?.status === 'done', { what: 'the schedule to run its one tick' });
    } finally {
      await runner.stop();
    }
    const lastJob = (await queue.schedules.get('once'))?.lastJobId as string;
    expect(lastJob).toEqual(expect.any(String));
    expect((await runCli(BIN.jobsctl, ['schedules', 'list'], env)).stdout).toMatch(new RegExp(`^once\\s+digest\\s+every 1s\\s+done\\s+-\\s+1/1\\s+${lastJob}$`, 'm'));
    const pause = await runCli(BIN.jobsctl, ['schedules', 'pause', 'once'], env);
    expect(pause).toMatchObject({ code: 1, stdout: '', stderr: `schedule once of ${queueName} is done (its run limit or end reached): upsert it to run again\n` });
    await queue.close();
  });

  test("upsert --options gives each tick's job its options; show lists them", async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('digest', {});
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const upsert = await runCli(BIN.jobsctl, ['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'poll', '--kind', 'digest', '--every', '60000', '--options', '{"priority":5,"group":"feeds","ttlMs":60000}'], env);
    expect(upsert.code).toBe(0);
    expect((await queue.schedules.get('poll'))?.options).toEqual({ priority: 5, group: 'feeds', ttlMs: 60_000 });
    const show = await runCli(BIN.jobsctl, ['schedules', 'show', 'poll'], env);
    expect(show.stdout).toMatch(/^job_options\s+\{"priority":5,"group":"feeds","ttlMs":60000\}$/m);
    await queue.close();
  });

  test('a partitioned queue keeps its schedules in partition 0, where its producer does', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 2 });
    await queue.enqueue('digest', {});
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    expect((await runCli(BIN.jobsctl, ['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'nightly', '--kind', 'digest', '--cron', '0 3 * * *'], env)).code).toBe(0);
    expect((await queue.partitions[0]?.schedules.get('nightly'))?.cron).toBe('0 3 * * *');
    expect((await runCli(BIN.jobsctl, ['schedules', 'list'], env)).stdout).toMatch(/^nightly\s+digest\s+cron 0 3 \* \* \* UTC\s+active/m);
    await queue.close();
  });

  test('upsert refuses what the kinds or the schedule rules refuse: the flag at fault, exit code 2, nothing written', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('digest', {});
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const base = ['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'x'];
    const cases: [string[], RegExp][] = [
      [['--kind', 'email', '--payload', '{"to":"a"}', '--cron', '0 99 * * *'], /^jobsctl: schedules upsert: --cron: invalid cron pattern "0 99 \* \* \*"/],
      [['--kind', 'email', '--payload', '{"to":"a"}', '--cron', '0 8 * * *', '--tz', 'Mars/Olympus'], /^jobsctl: schedules upsert: --tz: unknown time zone "Mars\/Olympus"/],
      [['--kind', 'email', '--payload', '{"to":"a"}', '--every', '500'], /^jobsctl: schedules upsert: --every: expected a whole number from 1000/],
      [['--kind', 'email', '--payload', '{"to":1}', '--every', '60000'], /^jobsctl: schedules upsert: --payload: invalid payload for kind "email": \/to must be string/],
      [['--kind', 'emial', '--every', '60000'], /^jobsctl: schedules upsert: --kind: unknown kind "emial"/],
      [['--kind', 'email', '--payload', '{"to":"a"}', '--every', '60000', '--options', '{"priority":5000}'], /^jobsctl: schedules upsert: --options: priority: /],
      [['--kind', 'email', '--payload', '{"to":"a"}', '--every', '60000', '--options', '{"delayMs":10}'], /^jobsctl: schedules upsert: --options: delayMs: a schedule does not take delayMs/],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(BIN.jobsctl, [...base, ...args], env);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain('Run jobsctl schedules upsert --help for the options.');
    }
    const json = await runCli(BIN.jobsctl, [...base, '--kind', 'email', '--payload', '{"to":"a"}', '--cron', 'every day', '--json'], env);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: 'JOBS_INVALID_ARGUMENT', field: 'cron', flag: '--cron' });
    expect(await queue.schedules.list()).toEqual([]);
    await queue.close();
  });

  test('wrong arguments exit 2 before Redis is asked: no --kinds for upsert, bad JSON, both or neither timing', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('digest', {});
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const cases: [string[], RegExp, string][] = [
      [['schedules', 'upsert', '--id', 'x', '--kind', 'digest', '--every', '60000'], /schedules upsert needs --kinds FILE: the payload is checked against its kind's schema, which lives in your code, not in Redis/, 'schedules upsert'],
      [['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'x', '--kind', 'digest', '--payload', '{nope', '--every', '60000'], /--payload must be JSON/, 'schedules upsert'],
      [['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'x', '--kind', 'digest', '--payload-file', 'no-such.json', '--every', '60000'], /--payload-file: cannot read no-such\.json: no such file/, 'schedules upsert'],
      [['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'x', '--kind', 'digest', '--cron', '* * * * *', '--every', '60000'], /needs --cron PATTERN or --every MS \(one of them\)/, 'schedules upsert'],
      [['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'x', '--kind', 'digest'], /needs --cron PATTERN or --every MS/, 'schedules upsert'],
      [['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'x', '--kind', 'digest', '--every', '60000', '--tz', 'UTC'], /--tz applies to --cron only/, 'schedules upsert'],
      [['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'x', '--kind', 'digest', '--every', '60000', '--end-at', 'tomorrow'], /--end-at must be a time in ISO 8601/, 'schedules upsert'],
      [['schedules', 'upsert', '--kinds', KINDS_MODULE, '--id', 'a:b', '--kind', 'digest', '--every', '60000'], /is not a schedule id/, 'schedules upsert'],
      [['schedules', 'upsert', '--kinds', fileURLToPath(new URL('cli.ts', import.meta.url)), '--id', 'x', '--kind', 'digest', '--every', '60000'], /--kinds: cannot load/, 'schedules upsert'],
      [['schedules', 'show'], /missing required argument 'id'/, 'schedules show'],
      [['schedules', 'list', '-q', 'x*y'], /is not a valid queue name/, 'schedules list'],
    ];
    for (const [args, message, hint] of cases) {
      const run = await runCli(BIN.jobsctl, args, env);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain(`Run jobsctl ${hint} --help for the options.`);
    }
    expect(await queue.schedules.list()).toEqual([]);
    await queue.close();
  });

  test('an unknown schedule id or queue: exit code 1, with the schedules or queues there are', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.schedules.upsert({ id: 'digest', kind: 'digest', payload: {}, every: 60_000 });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    for (const action of ['show', 'pause', 'resume', 'remove']) {
      const run = await runCli(BIN.jobsctl, ['schedules', action, 'digets'], env);
      expect(run.code, action).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`no schedule "digets" in queue ${queueName}; did you mean "digest"?\nits schedules: digest\n`);
    }
    const json = await runCli(BIN.jobsctl, ['schedules', 'remove', 'other', '--json'], env);
    expect(JSON.parse(json.stderr)).toEqual({ error: 'not_found', queue: queueName, id: 'other', schedules: ['digest'] });
    const typo = `${queueName}x`;
    const noQueue = await runCli(BIN.jobsctl, ['schedules', 'list', '-q', typo], env);
    expect(noQueue.code).toBe(1);
    expect(noQueue.stderr).toContain(`jobsctl: no queue "${typo}" in Redis at `);
    expect((await queue.schedules.get('digest'))?.status).toBe('active');
    await queue.close();
  });

  test('schedules and each of its commands have their own --help; upsert says why it needs --kinds', async () => {
    const group = await runCli(BIN.jobsctl, ['schedules', '--help']);
    expect(group.code).toBe(0);
    for (const command of ['list', 'show', 'upsert', 'pause', 'resume', 'remove']) expect(group.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    const upsert = await runCli(BIN.jobsctl, ['schedules', 'upsert', '--help']);
    expect(upsert.code).toBe(0);
    expect(upsert.stdout).toMatch(/^Usage: jobsctl schedules upsert \[options\]/);
    for (const flag of ['--id <id>', '--kind <kind>', '--payload <json>', '--payload-file <file>', '--cron <pattern>', '--tz <zone>', '--every <ms>', '--start-at <time>', '--end-at <time>', '--limit <n>', '--kinds <file>', '--redis-url <url>']) {
      expect(upsert.stdout).toContain(flag);
    }
    expect(upsert.stdout.replace(/\s+/g, ' ')).toContain("The payload is checked against its kind's schema at upsert");
    const list = await runCli(BIN.jobsctl, ['schedules', 'list', '-h']);
    expect(list.stdout).toMatch(/next run \(ISO 8601; epoch ms with\s+--json\)/);
  });
});
