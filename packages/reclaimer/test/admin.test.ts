import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineKinds, Queue } from '@jobs/core';
import { findFreePort } from '@jobs/dev-redis';
import { spawn } from 'node:child_process';
import { isClusterRun, queueKeysIn, redisNodes, redisTest as test, waitFor, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { BIN, runCli } from './cli.ts';

const kinds = defineKinds({ task: { schema: { type: 'object', properties: { n: { type: 'integer' } } } } });

describe('jobsctl (the admin CLI, run as a child process)', () => {
  test('stats and queues show depths and counters, as a table or as JSON', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueueMany([{ kind: 'task', payload: { n: 1 } }, { kind: 'task', payload: { n: 2 } }]);
    await queue.enqueue('task', { n: 3 }, { delayMs: 60_000 });
    const env = { REDIS_URL: redisUrl };
    const stats = await runCli(BIN.jobsctl, ['stats', '--queue', queueName], env);
    expect(stats.code).toBe(0);
    expect(stats.stdout).toMatch(/pendingDepth\s+2/);
    expect(stats.stdout).toMatch(/delayedDepth\s+1/);
    // The snapshot's time in ISO 8601; no visibility (a queue keeps none: it was the CLI's default).
    expect(stats.stdout).toMatch(/^at\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/m);
    expect(stats.stdout).not.toMatch(/visibility/i);
    const json = JSON.parse((await runCli(BIN.jobsctl, ['stats', '-q', queueName, '--json'], env)).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ queue: queueName, pendingDepth: 2, delayedDepth: 1, enqueuedTotal: 3, nowMs: expect.any(Number) });
    expect(json).not.toHaveProperty('visibilityMs');
    const queues = await runCli(BIN.jobsctl, ['queues'], env);
    expect(queues.code).toBe(0);
    expect(queues.stdout).toMatch(/^QUEUE\s+PENDING\s+PROCESSING/);
    expect(queues.stdout).toMatch(new RegExp(`${queueName}\\s+2\\s+0\\s+1\\s+0\\s+0`));
    const all = JSON.parse((await runCli(BIN.jobsctl, ['stats', '--json'], env)).stdout) as { queue: string }[];
    expect(all.map((entry) => entry.queue)).toContain(queueName);
    await queue.close();
  });

  test("stats shows the queue's limits on one line (and as JSON)", async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('task', { n: 1 });
    await queue.setLimits({ rate: { max: 100, windowMs: 1_000 }, kinds: { task: { concurrency: 2 } }, groups: { concurrency: 1 } });
    const env = { REDIS_URL: redisUrl };
    const stats = await runCli(BIN.jobsctl, ['stats', '--queue', queueName], env);
    expect(stats.stdout, stats.stderr).toMatch(/^limits\s+rate 100\/1000ms; task: concurrency 2; groups: concurrency 1$/m);
    const json = JSON.parse((await runCli(BIN.jobsctl, ['stats', '-q', queueName, '--json'], env)).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ limits: { rate: { max: 100, windowMs: 1_000 }, kinds: { task: { concurrency: 2 } }, groups: { concurrency: 1 } } });
    await queue.close();
  });

  test("stats shows the queue's own cap and a spread limit with its burst", async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('task', { n: 1 });
    await queue.setLimits({ rate: { max: 100, windowMs: 1_000, spread: true }, concurrency: 50, kinds: { task: { rate: { max: 5, windowMs: 1_000, spread: true, burst: 5 } } } });
    const env = { REDIS_URL: redisUrl };
    const stats = await runCli(BIN.jobsctl, ['stats', '--queue', queueName], env);
    expect(stats.stdout, stats.stderr).toMatch(/^limits\s+rate 100\/1000ms spread burst 2, concurrency 50; task: rate 5\/1000ms spread burst 5$/m);
    const json = JSON.parse((await runCli(BIN.jobsctl, ['stats', '-q', queueName, '--json'], env)).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ limits: { rate: { max: 100, windowMs: 1_000, spread: true, burst: 2 }, concurrency: 50 } });
    await queue.close();
  });

  test('ls, show, cancel, retry and retry --all-failed', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const ids = [];
    for (let n = 0; n < 4; n += 1) ids.push(await queue.enqueue('task', { n }));
    const [a, b, c] = await queue.claim({ max: 3 });
    for (const job of [a, b, c]) if (job) await queue.fail(job, `broke on ${job.id}`, { permanent: true });

    const ls = await runCli(BIN.jobsctl, ['ls', 'failed'], env);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(/^ID\s+STATUS\s+KIND\s+ATTEMPTS/);
    expect(ls.stdout).toContain(`broke on ${ids[0]}`);
    const lsJson = JSON.parse((await runCli(BIN.jobsctl, ['ls', 'pending', '--json'], env)).stdout) as { id: string }[];
    expect(lsJson.map((job) => job.id)).toEqual([ids[3]]);

    const show = await runCli(BIN.jobsctl, ['show', ids[0] as string], env);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/last_error\s+broke on/);
    expect(show.stdout).toMatch(/status\s+failed/);
    // Times for people in ISO 8601 (the recipe's 0, "never", as -); epoch ms with --json.
    const failedAt = (await queue.getJob(ids[0] as string))?.failedAtMs as number;
    expect(show.stdout).toMatch(new RegExp(`^failed_at\\s+${new Date(failedAt).toISOString().replace(/\./g, '\\.')}$`, 'm'));
    expect(show.stdout).toMatch(/^enqueued_at\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/m);
    expect(show.stdout).not.toMatch(/_at_ms|\b1\d{12}\b/);
    const showJson = JSON.parse((await runCli(BIN.jobsctl, ['show', ids[0] as string, '--json'], env)).stdout) as { fields: Record<string, string> };
    expect(showJson.fields.failed_at_ms).toBe(String(failedAt));
    const missing = await runCli(BIN.jobsctl, ['show', 'ffffffffffffffff'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no job ffffffffffffffff/);

    const cancel = await runCli(BIN.jobsctl, ['cancel', ids[3] as string], env);
    expect(cancel).toMatchObject({ code: 0, stdout: `cancelled ${ids[3]}\n` });
    const cancelAgain = await runCli(BIN.jobsctl, ['cancel', ids[0] as string], env);
    expect(cancelAgain.code).toBe(1);
    expect(cancelAgain.stderr).toMatch(/cannot cancel \w+: it is failed/);

    const retryOne = await runCli(BIN.jobsctl, ['retry', ids[0] as string], env);
    expect(retryOne).toMatchObject({ code: 0, stdout: `retried ${ids[0]}\n` });
    const retryAll = await runCli(BIN.jobsctl, ['retry', '--all-failed', '--json'], env);
    expect(retryAll.code).toBe(0);
    expect((JSON.parse(retryAll.stdout) as { retried: string[] }).retried.sort()).toEqual([ids[1], ids[2]].sort());
    expect(await queue.stats()).toMatchObject({ failedDepth: 0, pendingDepth: 3 });
    const notFailed = await runCli(BIN.jobsctl, ['retry', ids[0] as string], env);
    expect(notFailed.code).toBe(1);
    expect(notFailed.stderr).toMatch(/it is pending, not failed/);
    await queue.close();
  });

  test('show prints a job timeline; events lists the log and --follow prints new events as they come; a CLI cancel is logged', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, eventLog: true, workerId: 'w-7' });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const id = await queue.enqueue('task', { n: 1 });
    const [job] = await queue.claim();
    if (job) await queue.fail(job, Object.assign(new Error('no'), { code: 'EBUSY' }), { permanent: true });
    const show = await runCli(BIN.jobsctl, ['show', id], env);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/timeline:\n.*enqueued\s+#0\n.*claimed\s+#1\s+by w-7\n.*failed\s+#1\s+by w-7\s+code EBUSY/);
    const events = JSON.parse((await runCli(BIN.jobsctl, ['events', '--json'], env)).stdout) as { jobId: string; event: string }[];
    expect(events.map((e) => `${e.jobId} ${e.event}`)).toEqual([`${id} enqueued`, `${id} claimed`, `${id} failed`]);

    const follower = spawn(process.execPath, [BIN.jobsctl, 'events', '--follow', '--json'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    follower.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => follower.on('exit', resolve));
    // From now: started before the enqueue below, it must print it (the CLI resolves '$' first).
    await waitFor(async () => (await redisNodes(redis)).length > 0 && (await blockedInXread(redis)), { what: 'the follower waiting in XREAD' });
    const later = await queue.enqueue('task', { n: 2 });
    const viaCli = await runCli(BIN.jobsctl, ['cancel', later], env);
    expect(viaCli.code).toBe(0);
    await waitFor(() => out.includes('"cancelled"'), { what: 'the follower printing the cancel' });
    follower.kill('SIGINT');
    expect(await exited).toBe(0);
    const lines = out.trim().split('\n').map((line) => JSON.parse(line) as { jobId: string; event: string; worker: string | null });
    expect(lines.map((e) => `${e.jobId} ${e.event} ${e.worker}`)).toEqual([`${later} enqueued null`, `${later} cancelled jobsctl`]);
    await queue.close();
  });

  test('purge asks for --yes, then deletes every key of the queue but its audit trail, which records the purge', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('task', { n: 1 });
    const env = { REDIS_URL: redisUrl };
    const refused = await runCli(BIN.jobsctl, ['purge', '--queue', queueName], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/add --yes/);
    expect(await redis.exists(`queue:{${queueName}}:pending`)).toBe(1);
    const purged = await runCli(BIN.jobsctl, ['purge', '--queue', queueName, '--yes'], env);
    expect(purged.code).toBe(0);
    expect(purged.stdout).toMatch(/purged .*: deleted \d+ key/);
    expect(await queueKeysIn(redis, queueName)).toEqual([queue.keys.audit]);
    expect((await queue.auditTrail()).entries.map((entry) => [entry.who.role, entry.action])).toEqual([['cli', 'purge']]);
    await queue.close();
  });

  test('wrong arguments: a clear message, a hint at the help of the command, and exit code 2', async () => {
    const cases: [string[], RegExp, string][] = [
      [['frobnicate'], /unknown command 'frobnicate'/, 'jobsctl --help'],
      [['ls', 'failed'], /ls needs --queue NAME/, 'jobsctl ls --help'],
      [['ls', 'sideways', '-q', 'q'], /Allowed choices are pending, waiting, prioritized, grouped, parked, delayed, waiting-children, processing, completed, failed/, 'jobsctl ls --help'],
      [['ls', 'failed', '-q', 'q', '--limit', 'ten'], /--limit must be a whole number/, 'jobsctl ls --help'],
      [['ls', 'failed', '-q', 'q', '--limit=-3'], /--limit must be a whole number/, 'jobsctl ls --help'],
      [['show', '-q', 'q'], /missing required argument 'id'/, 'jobsctl show --help'],
      [['show', 'bad id!', '-q', 'q'], /is not a job id/, 'jobsctl show --help'],
      [['retry', '-q', 'q'], /retry takes job ids, or --all-failed/, 'jobsctl retry --help'],
      [['stats', '-q', 'x*y'], /--queue: "x\*y" is not a valid queue name/, 'jobsctl stats --help'],
      [['stats', '--bogus'], /unknown option '--bogus'/, 'jobsctl stats --help'],
      [['stats', '--redis-url', 'localhost:6379'], /--redis-url must start with redis:\/\//, 'jobsctl stats --help'],
      [['export-failed'], /export-failed needs --queue NAME/, 'jobsctl export-failed --help'],
    ];
    for (const [args, message, hint] of cases) {
      const run = await runCli(BIN.jobsctl, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain(`Run ${hint} for the options.`);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  test('an environment variable that is wrong is named in the message, not the flag it stands for', async () => {
    const badQueue = await runCli(BIN.jobsctl, ['stats'], { JOBS_QUEUE: 'x*y' });
    expect(badQueue.code).toBe(2);
    expect(badQueue.stderr).toMatch(/JOBS_QUEUE: "x\*y" is not a valid queue name/);
    expect(badQueue.stderr).not.toContain('--queue');
    const badUrl = await runCli(BIN.jobsctl, ['queues'], { REDIS_URL: 'localhost:6379' });
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toMatch(/^jobsctl: REDIS_URL must start with redis:\/\//);
    // A flag wins over its variable.
    const flagWins = await runCli(BIN.jobsctl, ['acl', 'app', '-q', 'mail'], { JOBS_QUEUE: 'x*y' });
    expect(flagWins.code).toBe(0);
  });

  test('--version prints the version of the package; -V too', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) expect(await runCli(BIN.jobsctl, [flag])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  test('every command has its own --help, with its own options and the shared ones', async () => {
    const help = await runCli(BIN.jobsctl, ['--help']);
    expect(help.code).toBe(0);
    for (const command of ['queues', 'stats', 'ls', 'show', 'retry', 'cancel', 'export-failed', 'purge', 'acl']) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    const ls = await runCli(BIN.jobsctl, ['ls', '--help']);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(/^Usage: jobsctl ls \[options\] <state>/);
    expect(ls.stdout).toMatch(/--limit <n>/);
    expect(ls.stdout).toMatch(/--redis-url <url>/);
    const stats = await runCli(BIN.jobsctl, ['help', 'stats']);
    expect(stats.code).toBe(0);
    expect(stats.stdout).toMatch(/^Usage: jobsctl stats/);
    expect(stats.stdout).not.toMatch(/--limit/);
    expect(stats.stdout).toMatch(/keeps no settings in Redis/);
    const retry = await runCli(BIN.jobsctl, ['retry', '-h']);
    expect(retry.stdout).toMatch(/--all-failed/);
  });

  test('a queue that is not in Redis: exit code 1, and the queues that are, the closest to the name first', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const id = await queue.enqueue('task', { n: 1 });
    const env = { REDIS_URL: redisUrl };
    const typo = `${queueName}x`;
    for (const args of [['stats', '-q', typo], ['ls', 'pending', '-q', typo], ['show', id, '-q', typo], ['cancel', id, '-q', typo], ['export-failed', '-q', typo], ['purge', '-q', typo, '--yes']]) {
      const run = await runCli(BIN.jobsctl, args, env);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`jobsctl: no queue "${typo}" in Redis at `);
      expect(run.stderr).toContain(`did you mean "${queueName}"?`);
      expect(run.stderr).toContain(`its queues: ${queueName}`);
    }
    // Nothing was written under the mistyped name.
    expect(await queueKeysIn(redis, typo)).toEqual([]);
    expect((await queue.getJob(id))?.status).toBe('pending');
    await queue.close();
  });

  test('export-failed writes every dead letter as a JSON line, a page at a time, to a new file or stdout', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    // More than two pages of the export (500 each).
    const count = 1_100;
    for (let start = 0; start < count; start += 500) {
      await queue.enqueueMany(Array.from({ length: Math.min(500, count - start) }, (_, i) => ({ kind: 'task' as const, payload: { n: start + i } })));
    }
    const failed: string[] = [];
    while (failed.length < count) {
      for (const job of await queue.claim({ max: 500 })) {
        await queue.fail(job, new Error(`broke on ${(job.payload as { n: number }).n}`), { permanent: true });
        failed.push(job.id);
      }
    }
    await queue.enqueue('task', { n: -1 });
    const dir = mkdtempSync(join(tmpdir(), 'jobsctl-export-'));
    try {
      const out = join(dir, 'failed.jsonl');
      const run = await runCli(BIN.jobsctl, ['export-failed', '--out', out], env);
      expect(run).toMatchObject({ code: 0, stdout: '' });
      expect(run.stderr).toBe(`exported ${count} failed job(s) of ${queueName} to ${out}\n`);
      const lines = readFileSync(out, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.map((line) => line.id)).toEqual([...failed].reverse());
      const newest = await queue.getJob(failed.at(-1) as string);
      expect(lines[0]).toEqual({
        queue: queueName,
        id: newest?.id,
        kind: 'task',
        status: 'failed',
        attempts: 1,
        max_attempts: 3,
        payload: { kind: 'task', n: count - 1 },
        last_error: `broke on ${count - 1}`,
        enqueued_at_ms: newest?.enqueuedAtMs,
        claimed_at_ms: newest?.claimedAtMs,
        failed_at_ms: newest?.failedAtMs,
        last_error_at_ms: newest?.lastErrorAtMs,
        fields: newest?.fields,
      });
      // An export never overwrites a file: the evidence already there stays as it was.
      const before = readFileSync(out, 'utf8');
      const again = await runCli(BIN.jobsctl, ['export-failed', '--out', out], env);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/cannot write .*failed\.jsonl: the file exists/);
      expect(readFileSync(out, 'utf8')).toBe(before);
      // To stdout, for a pipe.
      const piped = await runCli(BIN.jobsctl, ['export-failed'], env);
      expect(piped.code).toBe(0);
      expect(piped.stdout.trimEnd().split('\n')).toHaveLength(count);
      expect(piped.stderr).toBe(`exported ${count} failed job(s) of ${queueName}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Exporting changes nothing.
    expect(await queue.stats()).toMatchObject({ failedDepth: count, pendingDepth: 1 });
    await queue.close();
  }, 60_000);

  test('an unreachable Redis: the reason in one line, exit code 1, no stack trace, no password, no client library internals', async () => {
    const port = await findFreePort();
    // One server, or a cluster whose only seed is down.
    const [url, shown, reason] = isClusterRun()
      ? [`redis+cluster://ops:topsecret@127.0.0.1:${port}`, `redis\\+cluster://ops:\\*\\*\\*@127\\.0\\.0\\.1:${port}`, 'no node of the cluster accepted a connection']
      : [`redis://ops:topsecret@127.0.0.1:${port}/0`, `redis://ops:\\*\\*\\*@127\\.0\\.0\\.1:${port}/0`, 'connection refused'];
    const run = await runCli(BIN.jobsctl, ['stats', '-q', 'q'], { REDIS_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^jobsctl: cannot reach Redis at ${shown}: ${reason}`));
    expect(run.stderr).not.toContain('topsecret');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stderr).not.toMatch(/maxRetriesPerRequest|max retries|ioredis|Command timed out/i);
  });
});

/** True while some connection on some server is blocked in XREAD. */
async function blockedInXread(redis: TestRedis): Promise<boolean> {
  for (const node of await redisNodes(redis)) {
    if (String(await node.client('LIST')).split('\n').some((line) => / cmd=xread /.test(line))) return true;
  }
  return false;
}
