import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { defineKinds, Queue } from '@jobs/core';
import { findFreePort, startRedisServer } from '@jobs/dev-redis';
import { isClusterRun, onEveryNode, redisNodes, redisTest as test, urlWithUser, waitFor, within } from '@jobs/testing';
import { createWorker } from '@jobs/worker';
import { Redis } from 'ioredis';
import { describe, expect } from 'vitest';
import { daemonConfig } from '../src/daemon-config.ts';
import { BIN, runCli, startDaemon } from './cli.ts';

const kinds = defineKinds({ task: { schema: { type: 'object', properties: { n: { type: 'integer' } } } } });

describe('jobs-reclaimer (the daemon, run as a child process)', () => {
  test('--help is readable and says the default metrics port; --version; wrong flags exit 2 with the reason', async () => {
    const help = await runCli(BIN.reclaimer, ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: jobs-reclaimer/);
    expect(help.stdout).toMatch(/--interval-ms <n>/);
    // Read as one line: the help wraps to the width of its columns.
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('--metrics-port <n> serve /metrics and /healthz on this port; 0 turns them off [JOBS_METRICS_PORT] (default 9464)');
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(await runCli(BIN.reclaimer, ['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
    for (const [args, reason] of [
      [['--interval-ms', 'soon'], /--interval-ms must be a whole number/],
      [['--batch', '0'], /--batch must be a whole number from 1/],
      [['--queue', 'a{b}'], /not a valid queue name/],
      [['--nope'], /unknown option '--nope'/],
      [['--log-level', 'loud'], /--log-level must be one of/],
      [['--redis-url', 'http://x'], /--redis-url must start with redis:\/\//],
      [['--metrics-port', '70000'], /--metrics-port must be a whole number from 0 to 65535/],
    ] as const) {
      const run = await runCli(BIN.reclaimer, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(reason);
      expect(run.stderr).toContain('Run jobs-reclaimer --help for the options.');
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  test('a wrong environment variable is named in the message, not the flag it stands for; a flag wins over it', async () => {
    for (const [env, reason] of [
      [{ JOBS_BATCH: 'abc' }, /^jobs-reclaimer: JOBS_BATCH must be a whole number from 1 to 100000, got "abc"/],
      [{ JOBS_INTERVAL_MS: '5' }, /^jobs-reclaimer: JOBS_INTERVAL_MS must be a whole number from 10/],
      [{ JOBS_METRICS_PORT: 'http' }, /^jobs-reclaimer: JOBS_METRICS_PORT must be a whole number/],
      [{ JOBS_QUEUES: 'mail,bad*name' }, /^jobs-reclaimer: invalid JOBS_QUEUES: "bad\*name" is not a valid queue name/],
      [{ JOBS_LOG_LEVEL: 'loud' }, /^jobs-reclaimer: JOBS_LOG_LEVEL must be one of debug, info, warn, error/],
      [{ REDIS_URL: 'localhost:6379' }, /^jobs-reclaimer: REDIS_URL must start with redis:\/\//],
    ] as const) {
      const run = await runCli(BIN.reclaimer, [], env);
      expect(run.code, JSON.stringify(env)).toBe(2);
      expect(run.stderr).toMatch(reason);
    }
    expect(daemonConfig({ batch: '7' }, { JOBS_BATCH: 'abc', JOBS_METRICS_PORT: '0' })).toMatchObject({ batch: 7, metricsPort: undefined });
    expect(daemonConfig({}, {})).toMatchObject({ batch: 500, metricsPort: 9464, metricsHost: '127.0.0.1', intervalMs: 1_000 });
  });

  test('a metrics port in use: the daemon says so and exits with code 1 at once, without hanging', async ({ redisUrl }) => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    try {
      const daemon = startDaemon(['--metrics-port', String(port), '--interval-ms', '100'], { REDIS_URL: redisUrl });
      const code = await within(daemon.exited, 5_000, () => `the daemon still runs with its port taken (stdout: ${JSON.stringify(daemon.logs())})`);
      expect(code).toBe(1);
      const failure = daemon.logs().find((line) => line.level === 'error');
      expect(failure?.msg).toBe(`cannot serve /metrics on 127.0.0.1:${port}: the port is in use (another jobs-reclaimer?); choose another with --metrics-port, or 0 to turn it off`);
      expect(failure?.err).toMatchObject({ code: 'EADDRINUSE', stack: expect.stringMatching(/\n\s+at /) });
      // It never got as far as sweeping.
      expect(daemon.logs().some((line) => line.msg === 'swept' || line.msg === 'queues to sweep')).toBe(false);
    } finally {
      holder.close();
    }
  });

  test('/metrics and /healthz are served by default, on 127.0.0.1:9464', async ({ redisUrl, queueName }) => {
    const daemon = startDaemon(['--queue', queueName, '--interval-ms', '100'], { REDIS_URL: redisUrl });
    try {
      const outcome = await Promise.race([daemon.waitForLog((line) => line.msg === 'serving metrics' || line.level === 'error'), daemon.exited.then(() => undefined)]);
      const line = outcome ?? daemon.logs().find((entry) => entry.level === 'error');
      if (line?.msg === 'serving metrics') {
        expect(line.url).toBe('http://127.0.0.1:9464/metrics');
        const metrics = await fetch('http://127.0.0.1:9464/metrics');
        expect(metrics.status).toBe(200);
        expect(await metrics.text()).toMatch(/# TYPE jobs_reclaimer_sweep_errors_total counter/);
        expect((await fetch('http://127.0.0.1:9464/healthz')).status).toBe(200);
        expect(await daemon.stop()).toBe(0);
      } else {
        // Something else on this machine holds the port: the daemon tried the default, and said so.
        expect(line?.msg).toMatch(/^cannot serve \/metrics on 127\.0\.0\.1:9464: the port is in use/);
        expect(await daemon.exited).toBe(1);
      }
    } finally {
      if (daemon.process.exitCode === null) daemon.process.kill('SIGKILL');
    }
  });

  test('/healthz fails when sweeps keep failing though Redis answers PING, and recovers; the log has the error and its stack under err', async ({ redis, redisUrl, queueName }) => {
    // A user that may connect and PING, but not run the queue's scripts.
    const user = `healthz-${queueName}`;
    await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'on', '>pw-healthz', '~*', '&*', '-@all', '+@connection', '+info', '+cluster|slots', '+cluster|info'));
    const port = await findFreePort();
    const daemon = startDaemon(['--queue', queueName, '--interval-ms', '100', '--metrics-port', String(port)], { REDIS_URL: urlWithUser(redisUrl, user, 'pw-healthz') });
    try {
      await daemon.waitForLog((line) => line.msg === 'serving metrics');
      const failure = await daemon.waitForLog((line) => line.msg === 'sweep failed');
      expect(failure).toMatchObject({ level: 'error', queue: queueName, err: { code: 'JOBS_REDIS_NOPERM', message: expect.stringMatching(/lacks a permission/), stack: expect.stringMatching(/\n\s+at /) } });
      expect(failure).not.toHaveProperty('error');
      const unhealthy = await waitFor(
        async () => {
          const response = await fetch(`http://127.0.0.1:${port}/healthz`);
          return response.status === 503 ? ((await response.json()) as { status: string; error: string }) : undefined;
        },
        { what: '/healthz to fail after 3 failed sweeps' },
      );
      expect(unhealthy.status).toBe('unavailable');
      expect(unhealthy.error).toMatch(/^the last \d+ sweeps failed; the last error: the Redis user lacks a permission/);
      await onEveryNode(redis, (node) => node.acl('SETUSER', user, '+@all'));
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200, { what: '/healthz to recover after a good sweep' });
      expect(await daemon.stop()).toBe(0);
    } finally {
      if (daemon.process.exitCode === null) daemon.process.kill('SIGKILL');
      await onEveryNode(redis, (node) => node.acl('DELUSER', user));
    }
  });

  test("a crashed worker's job comes back to pending on a sweep after its lease expires, not before, and runs again", async ({ redisUrl, redis, queueName }) => {
    const intervalMs = 200;
    const daemon = startDaemon(['--queue', queueName, '--interval-ms', String(intervalMs), '--metrics-port', '0'], { REDIS_URL: redisUrl });
    await daemon.waitForLog((line) => line.msg === 'jobs-reclaimer starting');
    const producer = new Queue({ redis, queue: queueName, kinds });
    const id = await producer.enqueue('task', { n: 1 });
    const crashing = spawn(process.execPath, [fileURLToPath(new URL('./fixtures/claim-and-hang.mjs', import.meta.url))], {
      env: { ...process.env, REDIS_URL: redisUrl, QUEUE: queueName, VISIBILITY_MS: '300' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    crashing.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const leaseEnd = Number((await waitFor(() => /claimed (\w+) lease (\d+)/.exec(out)))[2]);
    crashing.kill('SIGKILL');
    const swept = await daemon.waitForLog((line) => line.msg === 'swept' && line.reclaimed === 1);
    expect(swept).toMatchObject({ queue: queueName, reclaimed: 1, level: 'info' });
    const job = await producer.getJob(id);
    expect(job?.status).toBe('pending');
    // Not before the lease's end, both on the Redis clock. How soon after is the daemon's
    // timing on a machine that may be busy: no bound here.
    expect(job?.reclaimedAtMs ?? 0).toBeGreaterThanOrEqual(leaseEnd);
    const worker = createWorker({ redis, queue: queueName, kinds, handlers: { task: ({ n }) => ({ ranAgain: n }) } });
    await waitFor(async () => (await producer.getJob(id))?.status === 'completed');
    expect((await producer.getJob(id))?.result).toEqual({ ranAgain: 1 });
    await worker.close();
    expect(await daemon.stop()).toBe(0);
    expect(daemon.logs().at(-1)).toMatchObject({ msg: 'stopped' });
    await producer.close();
  });

  test('four reclaimers sweeping 50,000 expired leases reclaim each job exactly once, in bounded calls', async ({ redisUrl, redis, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, visibilityMs: 1 });
    for (let start = 0; start < 50_000; start += 5_000) {
      await queue.enqueueMany(Array.from({ length: 5_000 }, (_, i) => ({ kind: 'task' as const, payload: { n: start + i } })));
    }
    let claimed = 0;
    while (claimed < 50_000) claimed += (await queue.claim({ max: 1_000 })).length;
    // The queue's scripts run on the master of its slot: watch every master's slow log.
    const masters = await redisNodes(redis);
    for (const node of masters) {
      await node.config('SET', 'slowlog-log-slower-than', '10000');
      await node.slowlog('RESET');
    }
    const batch = 500;
    const daemons = Array.from({ length: 4 }, () => startDaemon(['--queue', queueName, '--interval-ms', '20', '--batch', String(batch), '--metrics-port', '0'], { REDIS_URL: redisUrl }));
    await waitFor(async () => (await queue.stats()).reclaimedTotal >= 50_000, { timeoutMs: 90_000, intervalMs: 100, what: '50,000 reclaims' });
    const codes = await Promise.all(daemons.map((daemon) => daemon.stop()));
    expect(codes).toEqual([0, 0, 0, 0]);
    const sweeps = daemons.flatMap((daemon) => daemon.logs().filter((line) => line.msg === 'swept'));
    const perDaemon = daemons.map((daemon) => daemon.logs().reduce((sum, line) => sum + (line.msg === 'swept' ? Number(line.reclaimed) : 0), 0));
    expect(perDaemon.reduce((a, b) => a + b, 0)).toBe(50_000);
    expect(perDaemon.filter((n) => n > 0).length).toBeGreaterThan(1);
    expect(Math.max(...sweeps.map((line) => Number(line.largestCall)))).toBeLessThanOrEqual(batch);
    const stats = await queue.stats();
    expect(stats).toMatchObject({ reclaimedTotal: 50_000, pendingDepth: 50_000, processingDepth: 0 });
    expect(new Set(await redis.lrange(`queue:{${queueName}}:pending`, 0, -1)).size).toBe(50_000);
    // No script call kept Redis busy for long: nothing above a second in the slow log.
    const slow = (await Promise.all(masters.map((node) => node.slowlog('GET', 1_000)))).flat() as [number, number, number, string[]][];
    const slowest = Math.max(0, ...slow.map((entry) => entry[2]));
    expect(slowest).toBeLessThan(1_000_000);
    for (const node of masters) await node.config('SET', 'slowlog-log-slower-than', '10000');
    await queue.close();
  }, 120_000);

  // Starts, stops and restarts a redis-server of its own: a cluster run would only repeat it.
  test.skipIf(isClusterRun())('/metrics is Prometheus text with depths, totals and sweep durations; /healthz follows Redis going away and coming back', async () => {
    let server = await startRedisServer({ name: 'healthz' });
    const port = server.port;
    const client = new Redis(server.url);
    const queue = new Queue({ redis: client, queue: 'watched', kinds, visibilityMs: 1 });
    await queue.enqueueMany([{ kind: 'task', payload: { n: 1 } }, { kind: 'task', payload: { n: 2 } }, { kind: 'task', payload: { n: 3 } }]);
    await queue.claim();
    // A group's first job holds its turn in pending; the second waits in the group's list.
    await queue.enqueueMany([{ kind: 'task', payload: { n: 4 }, options: { group: 'acme' } }, { kind: 'task', payload: { n: 5 }, options: { group: 'acme' } }]);
    await queue.pause();
    await queue.pause({ kind: 'task' });
    const daemon = startDaemon(['--interval-ms', '100', '--metrics-port', String(await findFreePort())], { REDIS_URL: server.url });
    try {
      const serving = await daemon.waitForLog((line) => line.msg === 'serving metrics');
      const base = String(serving.url).replace(/\/metrics$/, '');
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      await daemon.waitForLog((line) => line.msg === 'swept' && line.queue === 'watched' && line.reclaimed === 1);
      const metrics = await waitFor(async () => {
        const text = await (await fetch(`${base}/metrics`)).text();
        return text.includes('jobs_queue_depth{queue="watched",state="pending"} 4') ? text : undefined;
      });
      const samples = new Map(
        metrics
          .split('\n')
          .filter((line) => line && !line.startsWith('#'))
          .map((line) => [line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1))] as const),
      );
      expect(samples.get('jobs_queue_depth{queue="watched",state="processing"}')).toBe(0);
      expect(samples.get('jobs_queue_depth{queue="watched",state="grouped"}')).toBe(1);
      expect(samples.get('jobs_queue_jobs_total{queue="watched",event="enqueued"}')).toBe(5);
      expect(samples.get('jobs_queue_jobs_total{queue="watched",event="reclaimed"}')).toBe(1);
      expect(samples.get('jobs_reclaimer_jobs_total{queue="watched",action="reclaimed"}')).toBe(1);
      expect(samples.get('jobs_reclaimer_sweep_duration_seconds_count{queue="watched"}')).toBeGreaterThan(0);
      expect(samples.get('jobs_queue_oldest_pending_age_seconds{queue="watched"}')).toBeGreaterThanOrEqual(0);
      expect(samples.get('jobs_redis_up')).toBe(1);
      expect(samples.get('jobs_queue_paused{queue="watched",kind=""}')).toBe(1);
      expect(samples.get('jobs_queue_paused{queue="watched",kind="task"}')).toBe(1);
      expect(metrics).toMatch(/# TYPE jobs_reclaimer_sweep_duration_seconds histogram/);

      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      await queue.close();
      client.disconnect();
      await server.stop();
      await waitFor(async () => (await fetch(`${base}/healthz`)).status === 503, { what: '/healthz to turn unhealthy' });
      const body = (await (await fetch(`${base}/healthz`)).json()) as { status: string };
      expect(body.status).toBe('unavailable');
      server = await startRedisServer({ name: 'healthz', port });
      await waitFor(async () => (await fetch(`${base}/healthz`)).status === 200, { timeoutMs: 20_000, what: '/healthz to turn healthy again' });
      // The new server knows none of the scripts: sweeping goes on (NOSCRIPT is handled inside).
      const again = new Redis(server.url);
      const queueAgain = new Queue({ redis: again, queue: 'watched', kinds, visibilityMs: 1 });
      await queueAgain.enqueue('task', { n: 4 });
      await queueAgain.claim();
      const sweepsBefore = daemon.logs().filter((line) => line.msg === 'swept' && line.reclaimed === 1).length;
      await waitFor(() => daemon.logs().filter((line) => line.msg === 'swept' && line.reclaimed === 1).length > sweepsBefore, { what: 'a sweep after the restart' });
      expect(daemon.logs().some((line) => JSON.stringify(line.err ?? '').includes('NOSCRIPT'))).toBe(false);
      await queueAgain.close();
      again.disconnect();
      expect((await fetch(`${base}/nothing`)).status).toBe(404);
      expect(await daemon.stop()).toBe(0);
    } finally {
      if (daemon.process.exitCode === null) daemon.process.kill('SIGKILL');
      await server.stop();
    }
  });

  test('with Redis away, --once reports the failed sweep as JOBS_REDIS_UNAVAILABLE and exits 1 instead of hanging', async () => {
    const port = await findFreePort();
    // One server, or a cluster whose only seed is down (its commands are bounded by the 10 s command timeout).
    const url = isClusterRun() ? `redis+cluster://127.0.0.1:${port}` : `redis://127.0.0.1:${port}`;
    const run = await runCli(BIN.reclaimer, ['--once', '--queue', 'away'], { REDIS_URL: url });
    expect(run.code).toBe(1);
    const failed = run.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.msg === 'sweep failed');
    expect(failed).toMatchObject({ queue: 'away', err: { code: 'JOBS_REDIS_UNAVAILABLE', stack: expect.stringMatching(/\n\s+at /) } });
  }, 30_000);

  test('with no --queue it finds every queue in Redis and sweeps them; the log never shows the password', async ({ redis, redisUrl, queueName }) => {
    const user = `reclaimer-${queueName}`;
    // A cluster does not share its users: every node (replicas too) must know this one.
    await onEveryNode(redis, (node) => node.acl('SETUSER', user, 'on', '>hunter2-secret', '~*', '&*', '+@all'));
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('task', { n: 1 }, { delayMs: 1 });
    const daemon = startDaemon(['--interval-ms', '50', '--metrics-port', '0'], { REDIS_URL: urlWithUser(redisUrl, user, 'hunter2-secret') });
    const swept = await daemon.waitForLog((line) => line.msg === 'swept' && line.queue === queueName && line.promoted === 1);
    expect(swept.promoted).toBe(1);
    expect(await daemon.stop()).toBe(0);
    const everything = JSON.stringify(daemon.logs()) + daemon.stderr();
    expect(everything).not.toContain('hunter2-secret');
    expect(everything).toContain(`${user}:***@`);
    await queue.close();
    await onEveryNode(redis, (node) => node.acl('DELUSER', user));
  });
});
