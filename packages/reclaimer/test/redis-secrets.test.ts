import { inspect } from 'node:util';
import { findFreePort, startRedisServer, type RedisServer } from '@jobs/dev-redis';
import { isClusterRun, waitFor, within } from '@jobs/testing';
import { createWorker } from '@jobs/worker';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDashboard, defineKinds, isJobsError, Queue } from '../src/index.ts';
import { BIN, runCli, startDaemon } from './cli.ts';

const kinds = defineKinds({ note: { schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } } });
const RIGHT = 'right-pw-4e1b-redis-secrets';
const WRONG = 'wrong-pw-Zq9x-never-logged';

/** A pino logger as a service writes one (pino's own error serializer), into `lines`. */
function plainPino(lines: string[]): pino.Logger {
  return pino({ level: 'debug', serializers: { err: pino.stdSerializers.err } }, { write: (line: string) => void lines.push(line) });
}

/** Every way an error gets written down: pino's serializer, util.inspect (hidden fields too), JSON. */
function everyRendering(error: unknown): string {
  const lines: string[] = [];
  plainPino(lines).error({ err: error }, 'failed');
  return [...lines, inspect(error, { depth: Infinity, showHidden: true }), JSON.stringify(error), String(error)].join('\n');
}

// These tests bring their own redis-server, with a password (requirepass) and an ACL user, or
// point at a port where none listens: a cluster run would only repeat them as they are.
describe.skipIf(isClusterRun())('a wrong Redis password reaches no log, event or error, through any entry point', () => {
  let server: RedisServer;
  let wrongUrl: string;
  let rightUrl: string;

  beforeAll(async () => {
    server = await startRedisServer({ name: 'secrets', args: ['--requirepass', RIGHT, '--user', 'app', 'on', `>${RIGHT}`, '~*', '&*', '+@all'] });
    wrongUrl = `redis://app:${WRONG}@127.0.0.1:${server.port}/0`;
    rightUrl = `redis://app:${RIGHT}@127.0.0.1:${server.port}/0`;
  });
  afterAll(async () => {
    await server?.stop();
  });

  test("the worker's error events are typed (a stable code each) and, written by pino, util.inspect or JSON, never show the password; ready() rejects with JOBS_REDIS_AUTH", async () => {
    const lines: string[] = [];
    const events: unknown[] = [];
    const worker = createWorker({ redis: wrongUrl, queue: 'secrets-worker', kinds, logger: plainPino(lines), readyTimeoutMs: 1_500, handlers: { note: ({ text }) => text } });
    worker.on('error', (error) => events.push(error));
    try {
      const ready = await within(
        worker.ready().then(
          () => 'resolved',
          (error: unknown) => error,
        ),
        20_000,
        () => 'ready() to settle',
      );
      expect(ready).toMatchObject({ code: 'JOBS_REDIS_AUTH', field: 'readyTimeoutMs' });
      // The start-up check, the delayed-job notices, the schedule runner: each failure is an event.
      await waitFor(() => events.length >= 5 || undefined, { what: 'five error events', timeoutMs: 20_000 });
      for (const event of events) {
        expect(isJobsError(event), inspect(event)).toBe(true);
        expect((event as { code: string }).code).toBe('JOBS_REDIS_AUTH');
        expect(everyRendering(event)).not.toContain(WRONG);
      }
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('\n')).not.toContain(WRONG);
    } finally {
      await worker.close({ graceMs: 0 });
    }
    expect(everyRendering(events)).not.toContain(WRONG);
  });

  test('a Queue (the producer and admin verbs) rejects with JOBS_REDIS_AUTH that carries no password; with the right one, ready() resolves', async () => {
    const queue = new Queue({ redis: wrongUrl, queue: 'secrets-queue', kinds });
    const error = await queue.enqueue('note', { text: 'x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'JOBS_REDIS_AUTH', message: expect.stringContaining('WRONGPASS') });
    expect(everyRendering(error)).not.toContain(WRONG);
    const stats = await queue.stats().catch((e: unknown) => e);
    expect(stats).toMatchObject({ code: 'JOBS_REDIS_AUTH' });
    expect(everyRendering(stats)).not.toContain(WRONG);
    await queue.close();

    const worker = createWorker({ redis: rightUrl, queue: 'secrets-queue', kinds, readyTimeoutMs: 20_000, handlers: { note: ({ text }) => text } });
    await within(worker.ready(), 25_000, () => 'ready() against a healthy Redis');
    await worker.close();
  });

  test('the daemon with --once logs the failed sweep typed and without the password, on stdout and stderr, and exits 1', async () => {
    const run = await runCli(BIN.reclaimer, ['--once', '--queue', 'secrets-daemon', '--metrics-port', '0'], { REDIS_URL: wrongUrl });
    expect(run.stdout + run.stderr).not.toContain(WRONG);
    const logged = run.stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.find((line) => line.msg === 'sweep failed')).toMatchObject({ queue: 'secrets-daemon', err: { code: 'JOBS_REDIS_AUTH' } });
    expect(run.code).toBe(1);
    // The same with the right password sweeps and exits 0.
    const healthy = await runCli(BIN.reclaimer, ['--once', '--queue', 'secrets-daemon', '--metrics-port', '0'], { REDIS_URL: rightUrl });
    expect(healthy.stdout + healthy.stderr).not.toContain(RIGHT);
    expect(healthy.code).toBe(0);
  }, 60_000);

  test('the running daemon (its sweeps, its queue discovery, its schedule runners) logs the failures typed and never the password', async () => {
    for (const args of [['--queue', 'secrets-daemon'], []]) {
      const daemon = startDaemon([...args, '--interval-ms', '50', '--metrics-port', '0'], { REDIS_URL: wrongUrl });
      try {
        // Two sweeps failed, and (with a queue named) its schedule runner, which subscribes at once.
        await daemon.waitForLog((line) => line.msg === 'sweep failed' && daemon.logs().filter((l) => l.msg === 'sweep failed').length >= 2);
        if (args.length > 0) await daemon.waitForLog((line) => line.msg === 'schedule runner failed');
        expect(await daemon.stop()).toBe(0);
        expect(JSON.stringify(daemon.logs()) + daemon.stderr()).not.toContain(WRONG);
        for (const line of daemon.logs().filter((l) => l.level === 'error')) expect(line).toMatchObject({ err: { code: 'JOBS_REDIS_AUTH' } });
      } finally {
        if (daemon.process.exitCode === null) daemon.process.kill('SIGKILL');
      }
    }
  }, 60_000);

  test('jobsctl stats says Redis refused the credentials, without the password, and exits 1', async () => {
    const run = await runCli(BIN.jobsctl, ['stats', '-q', 'secrets-ctl'], { REDIS_URL: wrongUrl });
    expect(run.stdout + run.stderr).not.toContain(WRONG);
    expect(run.stderr).toMatch(/Redis refused the credentials/);
    expect(run.code).toBe(1);
  }, 30_000);

  test("the dashboard's API answers 503 redis_auth, and neither its answer nor its log shows the password", async () => {
    const lines: string[] = [];
    const queue = new Queue({ redis: wrongUrl, queue: 'secrets-dashboard', kinds });
    const dashboard = createDashboard({ queues: [queue], sampleIntervalMs: 0, logger: plainPino(lines) });
    const listening = await dashboard.listen({ port: 0, host: '127.0.0.1' });
    try {
      for (const path of ['api/overview', 'api/queues/secrets-dashboard/jobs?state=failed']) {
        const response = await fetch(new URL(path, listening.url), { headers: { accept: 'application/json' } });
        const body = await response.text();
        expect(body).not.toContain(WRONG);
        expect({ status: response.status, body: JSON.parse(body) as unknown }).toMatchObject({ status: 503, body: { error: { code: 'redis_auth' } } });
      }
      expect(lines.join('\n')).not.toContain(WRONG);
    } finally {
      await listening.close();
      await queue.close();
    }
  });

  test('with Redis down, ready() rejects with JOBS_REDIS_UNAVAILABLE, and the log names Redis and its address, not the delayed-job notices', async () => {
    const port = await findFreePort();
    const lines: string[] = [];
    const worker = createWorker({ redis: `redis://app:${WRONG}@127.0.0.1:${port}/0`, queue: 'secrets-down', kinds, logger: plainPino(lines), readyTimeoutMs: 1_500, handlers: { note: () => 1 } });
    try {
      const error = await within(worker.ready().catch((e: unknown) => e), 20_000, () => 'ready() to reject');
      expect(error).toMatchObject({ code: 'JOBS_REDIS_UNAVAILABLE', message: expect.stringContaining(`redis://app:***@127.0.0.1:${port}/0 refused the connection (ECONNREFUSED)`) });
      const errors = lines.map((line) => JSON.parse(line) as { level: number; msg: string }).filter((line) => line.level >= 50);
      expect(errors.length).toBeGreaterThan(0);
      for (const line of errors) expect(line.msg).toMatch(/^Redis is unavailable: redis:\/\/app:\*\*\*@127\.0\.0\.1:\d+\/0 refused the connection/);
      expect(lines.join('\n')).not.toContain(WRONG);
    } finally {
      await worker.close({ graceMs: 0 });
    }
  });
});
