import { Queue } from '@jobs/core';
import { redisTest as test, waitFor, within } from '@jobs/testing';
import { createWorker, defineKinds } from '@jobs/worker';
import { describe, expect } from 'vitest';
import { createReclaimer } from '../src/index.ts';
import { BIN, runCli } from './cli.ts';

const kinds = defineKinds({
  mail: { schema: { type: 'object' } },
  thumb: { schema: { type: 'object' } },
});
const mailOnly = defineKinds({ mail: { schema: { type: 'object' } } });

describe('the worker registry in jobsctl and the metrics', () => {
  test('jobsctl workers lists the live workers with their jobs (table and --json), and says when there is none left', async ({ redis, redisUrl, queueName }) => {
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const queue = new Queue({ redis, queue: queueName, kinds });
    const release: (() => void)[] = [];
    const hold = () => new Promise<void>((resolve) => release.push(resolve));
    const worker = createWorker({ redis, queue: queueName, kinds, concurrency: 4, heartbeatIntervalMs: 200, workerId: 'box-a:1:ab', handlers: { mail: hold, thumb: hold } });
    // A queue whose only keys are its registry is found (it has workers before its first job).
    await waitFor(async () => (await queue.workers()).length === 1, { what: 'the worker in the registry' });
    expect((await runCli(BIN.jobsctl, ['workers'], env)).stdout).toMatch(/^ID\s+HOST/);
    const id = await queue.enqueue('mail', {});
    await waitFor(async () => (await queue.workers())[0]?.running.includes(id), { what: 'a heartbeat naming the running job' });

    const json = await runCli(BIN.jobsctl, ['workers', '--json'], env);
    expect(json.code).toBe(0);
    const [listed] = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(listed).toMatchObject({ id: 'box-a:1:ab', pid: process.pid, kinds: ['mail', 'thumb'], concurrency: 4, running: [id], runningCount: 1 });
    expect(listed?.aliveUntilMs).toBe((listed?.lastSeenMs as number) + 600);

    const table = await runCli(BIN.jobsctl, ['workers', '-q', queueName], { REDIS_URL: redisUrl });
    const [header, row, ...rest] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+HOST\s+PID\s+VERSION\s+KINDS\s+RUNNING\s+QUIET\s+JOBS\s+STARTED\s+LAST SEEN$/);
    expect(row).toMatch(new RegExp(`^box-a:1:ab\\s+\\S+\\s+${process.pid}\\s+\\S+\\s+mail, thumb\\s+1/4\\s+no\\s+${id}\\s+\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s+\\d{4}-\\d\\d-\\d\\dT\\S+Z$`));
    expect(rest).toEqual([]);

    for (const done of release.splice(0)) done();
    await within(worker.close(), 15_000, () => 'worker close');
    expect(JSON.parse((await runCli(BIN.jobsctl, ['workers', '--json'], env)).stdout)).toEqual([]);
    expect(await runCli(BIN.jobsctl, ['workers'], env)).toMatchObject({ code: 0, stdout: `no live workers in ${queueName}\n` });
    await queue.close();
  });

  test('jobsctl workers needs a queue', async () => {
    const run = await runCli(BIN.jobsctl, ['workers']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('workers needs --queue NAME (or JOBS_QUEUE)');
  });

  test('jobs_workers{queue,kind} counts the live workers of each kind, every worker under kind="", and reads 0 once the last one of a kind is gone', async ({ redis, queueName }) => {
    const both = createWorker({ redis, queue: queueName, kinds, heartbeatIntervalMs: 200, handlers: { mail: () => 1, thumb: () => 1 } });
    const mail = createWorker({ redis, queue: queueName, kinds: mailOnly, heartbeatIntervalMs: 200, handlers: { mail: () => 1 } });
    const queue = new Queue({ redis, queue: queueName, kinds });
    const reclaimer = createReclaimer({ redis, queues: [queueName], schedules: false });
    const sample = async (kind: string): Promise<number | undefined> => {
      const metric = await reclaimer.metrics.registry.getSingleMetric('jobs_workers')?.get();
      return metric?.values.find((value) => value.labels.queue === queueName && value.labels.kind === kind)?.value;
    };
    try {
      await waitFor(async () => (await queue.workers()).length === 2, { what: 'both workers in the registry' });
      await reclaimer.runOnce();
      expect([await sample('mail'), await sample('thumb'), await sample('')]).toEqual([2, 1, 2]);
      await within(both.close(), 15_000, () => 'worker close');
      await reclaimer.runOnce();
      expect([await sample('mail'), await sample('thumb'), await sample('')]).toEqual([1, 0, 1]);
      expect(await reclaimer.metrics.registry.metrics()).toContain(`jobs_workers{queue="${queueName}",kind="thumb"} 0`);
    } finally {
      await Promise.all([both.close(), mail.close(), queue.close(), reclaimer.stop()]);
    }
  });

  test("a partitioned queue's workers count under its partition 0 only, not as missing from the others", async ({ redis, queueName }) => {
    const worker = createWorker({ redis, queue: queueName, kinds, partitions: 2, heartbeatIntervalMs: 200, handlers: { mail: () => 1, thumb: () => 1 } });
    const queue = new Queue({ redis, queue: queueName, kinds, partitions: 2 });
    const reclaimer = createReclaimer({ redis, queues: [queueName], schedules: false });
    try {
      await worker.ready();
      await waitFor(async () => (await queue.workers()).length === 1, { what: 'the worker in the registry' });
      await reclaimer.runOnce();
      const values = (await reclaimer.metrics.registry.getSingleMetric('jobs_workers')?.get())?.values ?? [];
      const byQueue = (name: string) => values.filter((value) => value.labels.queue === name).map((value) => [value.labels.kind, value.value]);
      expect(byQueue(`${queueName}:p0`).sort()).toEqual([['', 1], ['mail', 1], ['thumb', 1]]);
      expect(byQueue(`${queueName}:p1`)).toEqual([]);
    } finally {
      await Promise.all([worker.close(), queue.close(), reclaimer.stop()]);
    }
  });
});
