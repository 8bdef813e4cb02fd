import { defineKinds, JobQueue } from '@jobs/core';
import { findFreePort } from '@jobs/dev-redis';
import { spawn } from 'node:child_process';
import { isClusterRun, queueKeysIn, redisNodes, redisTest as test, waitFor, type TestRedis } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { BIN, runCli } from './cli.ts';

const kinds = defineKinds({ task: { schema: { type: 'object', properties: { n: { type: 'integer' } } } } });

describe('jobs (the admin CLI, run as a child process)', () => {
  test('stats and queues show depths and counters, as a table or as JSON', async ({ redis, redisUrl, queueName }) => {
    const queue = new JobQueue({ redis, queue: queueName, kinds });
    await queue.enqueueMany([{ kind: 'task', payload: { n: 1 } }, { kind: 'task', payload: { n: 2 } }]);
    await queue.enqueue('task', { n: 3 }, { delayMs: 60_000 });
    const env = { REDIS_URL: redisUrl };
    const stats = await runCli(BIN.jobs, ['stats', '--queue', queueName], env);
    expect(stats.code).toBe(0);
    expect(stats.stdout).toMatch(/pendingDepth\s+2/);
    expect(stats.stdout).toMatch(/delayedDepth\s+1/);
    const json = JSON.parse((await runCli(BIN.jobs, ['stats', '-q', queueName, '--json'], env)).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ queue: queueName, pendingDepth: 2, delayedDepth: 1, enqueuedTotal: 3 });
    const queues = await runCli(BIN.jobs, ['queues'], env);
    expect(queues.code).toBe(0);
    expect(queues.stdout).toMatch(/^QUEUE\s+PENDING\s+PROCESSING/);
    expect(queues.stdout).toMatch(new RegExp(`${queueName}\\s+2\\s+0\\s+1\\s+0\\s+0`));
    const all = JSON.parse((await runCli(BIN.jobs, ['stats', '--json'], env)).stdout) as { queue: string }[];
    expect(all.map((entry) => entry.queue)).toContain(queueName);
    await queue.close();
  });

  test('ls, show, cancel, retry and retry --all-failed', async ({ redis, redisUrl, queueName }) => {
    const queue = new JobQueue({ redis, queue: queueName, kinds });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const ids = [];
    for (let n = 0; n < 4; n += 1) ids.push(await queue.enqueue('task', { n }));
    const [a, b, c] = await queue.claim({ max: 3 });
    for (const job of [a, b, c]) if (job) await queue.fail(job, `broke on ${job.id}`, { permanent: true });

    const ls = await runCli(BIN.jobs, ['ls', 'failed'], env);
    expect(ls.code).toBe(0);
    expect(ls.stdout).toMatch(/^ID\s+STATUS\s+KIND\s+ATTEMPTS/);
    expect(ls.stdout).toContain(`broke on ${ids[0]}`);
    const lsJson = JSON.parse((await runCli(BIN.jobs, ['ls', 'pending', '--json'], env)).stdout) as { id: string }[];
    expect(lsJson.map((job) => job.id)).toEqual([ids[3]]);

    const show = await runCli(BIN.jobs, ['show', ids[0] as string], env);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/last_error\s+broke on/);
    expect(show.stdout).toMatch(/status\s+failed/);
    const missing = await runCli(BIN.jobs, ['show', 'ffffffffffffffff'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no job ffffffffffffffff/);

    const cancel = await runCli(BIN.jobs, ['cancel', ids[3] as string], env);
    expect(cancel).toMatchObject({ code: 0, stdout: `cancelled ${ids[3]}\n` });
    const cancelAgain = await runCli(BIN.jobs, ['cancel', ids[0] as string], env);
    expect(cancelAgain.code).toBe(1);
    expect(cancelAgain.stderr).toMatch(/cannot cancel \w+: it is failed/);

    const retryOne = await runCli(BIN.jobs, ['retry', ids[0] as string], env);
    expect(retryOne).toMatchObject({ code: 0, stdout: `retried ${ids[0]}\n` });
    const retryAll = await runCli(BIN.jobs, ['retry', '--all-failed', '--json'], env);
    expect(retryAll.code).toBe(0);
    expect((JSON.parse(retryAll.stdout) as { retried: string[] }).retried.sort()).toEqual([ids[1], ids[2]].sort());
    expect(await queue.stats()).toMatchObject({ failedDepth: 0, pendingDepth: 3 });
    const notFailed = await runCli(BIN.jobs, ['retry', ids[0] as string], env);
    expect(notFailed.code).toBe(1);
    expect(notFailed.stderr).toMatch(/it is pending, not failed/);
    await queue.close();
  });

  test('show prints a job timeline; events lists the log and --follow prints new events as they come; a CLI cancel is logged', async ({ redis, redisUrl, queueName }) => {
    const queue = new JobQueue({ redis, queue: queueName, kinds, eventLog: true, workerId: 'w-7' });
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const id = await queue.enqueue('task', { n: 1 });
    const [job] = await queue.claim();
    if (job) await queue.fail(job, Object.assign(new Error('no'), { code: 'EBUSY' }), { permanent: true });
    const show = await runCli(BIN.jobs, ['show', id], env);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/timeline:\n.*enqueued\s+#0\n.*claimed\s+#1\s+by w-7\n.*failed\s+#1\s+by w-7\s+code EBUSY/);
    const events = JSON.parse((await runCli(BIN.jobs, ['events', '--json'], env)).stdout) as { jobId: string; event: string }[];
    expect(events.map((e) => `${e.jobId} ${e.event}`)).toEqual([`${id} enqueued`, `${id} claimed`, `${id} failed`]);

    const follower = spawn(process.execPath, [BIN.jobs, 'events', '--follow', '--json'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    follower.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => follower.on('exit', resolve));
    // From now: started before the enqueue below, it must print it (the CLI resolves '$' first).
    await waitFor(async () => (await redisNodes(redis)).length > 0 && (await blockedInXread(redis)), { what: 'the follower waiting in XREAD' });
    const later = await queue.enqueue('task', { n: 2 });
    const viaCli = await runCli(BIN.jobs, ['cancel', later], env);
    expect(viaCli.code).toBe(0);
    await waitFor(() => out.includes('"cancelled"'), { what: 'the follower printing the cancel' });
    follower.kill('SIGINT');
    expect(await exited).toBe(0);
    const lines = out.trim().split('\n').map((line) => JSON.parse(line) as { jobId: string; event: string; worker: string | null });
    expect(lines.map((e) => `${e.jobId} ${e.event} ${e.worker}`)).toEqual([`${later} enqueued null`, `${later} cancelled jobs-cli`]);
    await queue.close();
  });

  test('purge asks for --yes, then deletes every key of the queue', async ({ redis, redisUrl, queueName }) => {
    const queue = new JobQueue({ redis, queue: queueName, kinds });
    await queue.enqueue('task', { n: 1 });
    const env = { REDIS_URL: redisUrl };
    const refused = await runCli(BIN.jobs, ['purge', '--queue', queueName], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/add --yes/);
    expect(await redis.exists(`queue:{${queueName}}:pending`)).toBe(1);
    const purged = await runCli(BIN.jobs, ['purge', '--queue', queueName, '--yes'], env);
    expect(purged.code).toBe(0);
    expect(purged.stdout).toMatch(/purged .*: deleted \d+ key/);
    expect(await queueKeysIn(redis, queueName)).toEqual([]);
    await queue.close();
  });

  test('wrong arguments: a clear message and exit code 2', async () => {
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /unknown command "frobnicate"/],
      [['ls', 'failed'], /ls needs --queue NAME/],
      [['ls', 'sideways', '-q', 'q'], /ls takes one of pending, processing, delayed, completed, failed/],
      [['ls', 'failed', '-q', 'q', '--limit', 'ten'], /--limit must be a whole number/],
      [['ls', 'failed', '-q', 'q', '--limit=-3'], /--limit must be a whole number/],
      [['show', '-q', 'q'], /show takes one job id/],
      [['show', 'bad id!', '-q', 'q'], /is not a job id/],
      [['retry', '-q', 'q'], /retry takes job ids, or --all-failed/],
      [['stats', '-q', 'x*y'], /not a valid queue name/],
      [['stats', '--bogus'], /Unknown option '--bogus'/],
      [['stats', '--redis-url', 'localhost:6379'], /must start with redis:\/\//],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(BIN.jobs, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/Run jobs --help/);
    }
    const help = await runCli(BIN.jobs, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/retry --all-failed/);
  });

  test('an unreachable Redis: a clear message, exit code 1, no stack trace and no password', async () => {
    const port = await findFreePort();
    // One server, or a cluster whose only seed is down.
    const [url, shown] = isClusterRun()
      ? [`redis+cluster://ops:topsecret@127.0.0.1:${port}`, `redis\\+cluster://ops:\\*\\*\\*@127\\.0\\.0\\.1:${port}`]
      : [`redis://ops:topsecret@127.0.0.1:${port}/0`, `redis://ops:\\*\\*\\*@127\\.0\\.0\\.1:${port}/0`];
    const run = await runCli(BIN.jobs, ['stats', '-q', 'q'], { REDIS_URL: url });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`jobs: cannot reach Redis at ${shown}`));
    expect(run.stderr).not.toContain('topsecret');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

/** True while some connection on some server is blocked in XREAD. */
async function blockedInXread(redis: TestRedis): Promise<boolean> {
  for (const node of await redisNodes(redis)) {
    if (String(await node.client('LIST')).split('\n').some((line) => / cmd=xread /.test(line))) return true;
  }
  return false;
}
