import { Queue } from '@jobs/core';
import { redisTest as test, within } from '@jobs/testing';
import { createWorker, defineKinds, PermanentError } from '@jobs/worker';
import { describe, expect } from 'vitest';
import { BIN, runCli } from './cli.ts';

const kinds = defineKinds({
  mail: { schema: { type: 'object' } },
  thumb: { schema: { type: 'object' } },
});

describe('jobsctl stats --since (the metrics history)', () => {
  test('prints a row per step with the counts and run-time percentiles, then the totals; --json gives the columns', async ({ redis, redisUrl, queueName }) => {
    const queue = new Queue({ redis, queue: queueName, kinds, metricsHistory: true });
    await queue.enqueueMany([{ kind: 'mail', payload: {} }, { kind: 'mail', payload: {} }, { kind: 'mail', payload: {} }, { kind: 'thumb', payload: {} }]);
    const worker = createWorker({
      redis,
      queue: queueName,
      kinds,
      metricsHistory: true,
      handlers: {
        mail: () => 'sent',
        thumb: () => {
          throw new PermanentError('no image');
        },
      },
    });
    await worker.ready();
    const finished = new Promise<void>((resolve) => {
      let ended = 0;
      const end = (): void => {
        ended += 1;
        if (ended === 4) resolve();
      };
      worker.on('completed', end);
      worker.on('failed', end);
    });
    await within(finished, 15_000, () => 'the four jobs ending');
    // Closing sends the worker's last counts.
    await within(worker.close(), 15_000, () => 'worker close');
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };

    const hour = await runCli(BIN.jobsctl, ['stats', '--since', '1h'], env);
    expect(hour.code).toBe(0);
    const lines = hour.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`${queueName}, every kind (mail, thumb), per 1m:`);
    expect(lines[1]).toMatch(/^FROM\s+ENQUEUED\s+COMPLETED\s+FAILED\s+RETRIED\s+P50\s+P95\s+P99$/);
    expect(lines).toHaveLength(2 + 60 + 1);
    expect(lines.at(-1)).toMatch(/^total\s+4\s+3\s+1\s+0$/);
    // The steps with attempts show their percentiles; the others a dash.
    expect(lines.slice(2, -1).some((line) => /\d+(\.\d)?ms\s+\d+(\.\d)?ms\s+\d+(\.\d)?ms$/.test(line))).toBe(true);
    expect(lines[2]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\dZ\s+\d+\s+\d+\s+\d+\s+\d+\s+/);

    const json = await runCli(BIN.jobsctl, ['stats', '--since', '24h', '--kind', 'mail', '--step', '1h', '--json'], env);
    expect(json.code).toBe(0);
    const read = JSON.parse(json.stdout) as { queue: string; kind: string; stepMs: number; atMs: number[]; enqueued: number[]; completed: number[]; failed: number[] };
    expect([read.queue, read.kind, read.stepMs]).toEqual([queueName, 'mail', 3_600_000]);
    expect(read.atMs.every((at) => at % 3_600_000 === 0)).toBe(true);
    expect([read.enqueued, read.completed, read.failed].map((column) => column.reduce((a, b) => a + b, 0))).toEqual([3, 3, 0]);

    const fortnight = await runCli(BIN.jobsctl, ['stats', '--since', '14d'], env);
    expect(fortnight.stdout.split('\n')[0]).toBe(`${queueName}, every kind (mail, thumb), per 24h:`);
    expect(fortnight.stdout).toMatch(/^total\s+4\s+3\s+1\s+0$/m);
    await queue.close();
  });

  test('a queue without history says so; bad durations and flags are usage errors (exit 2)', async ({ redis, redisUrl, queueName }) => {
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    // A queue whose history is off.
    const queue = new Queue({ redis, queue: queueName, kinds });
    await queue.enqueue('mail', {});
    await queue.close();
    expect(await runCli(BIN.jobsctl, ['stats', '--since', '1h'], env)).toMatchObject({ code: 0, stdout: `no metrics history in ${queueName} (is its metricsHistory option on?)\n` });
    for (const [args, message] of [
      [['--since', '2w'], '--since takes a duration such as 30m, 24h or 14d'],
      [['--since', '15d'], '--since takes 1m to 14d'],
      [['--since', '24h', '--step', '90s'], '--step takes a duration'],
      [['--since', '14d', '--step', '30m'], '--step must be a whole number of hours'],
      [['--since', '1h', '--kind', 'no such kind'], '--kind:'],
      [['--kind', 'mail'], '--kind and --step go with --since'],
    ] as const) {
      const run = await runCli(BIN.jobsctl, ['stats', ...args], env);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toContain(message);
    }
    const noQueue = await runCli(BIN.jobsctl, ['stats', '--since', '1h'], { REDIS_URL: redisUrl });
    expect(noQueue.code).toBe(2);
    expect(noQueue.stderr).toContain('stats --since needs --queue NAME');
  });
});
