import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startRedisServer, type RedisServer } from '@jobs/dev-redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ScaleUsageError } from '../src/scale/options.ts';
import { runScale } from '../src/scale/run-scale.ts';
import { scaleReport } from '../src/scale/scale-report.ts';
import { WorkerProcesses } from '../src/scale/worker-processes.ts';

const CLI = new URL('../dist/scale/cli.js', import.meta.url).pathname;

/** True while a process with this id exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer({ name: 'bench-scale-test' });
});
afterAll(async () => {
  await redis?.stop();
});

describe('scale benchmark (tiny sizes; figures mean nothing, completion does)', () => {
  test('both systems at 1 and 2 worker processes complete every job exactly once, and the table has a row per process count', async () => {
    const run = await runScale({ redisUrl: redis.url, n: 200, processes: [1, 2], concurrency: 4, reps: 1, systems: ['@jobs', 'BullMQ'], warmup: 50 });
    expect(run.measurements.map((m) => `${m.system}@${m.processes}`).sort()).toEqual(['@jobs@1', '@jobs@2', 'BullMQ@1', 'BullMQ@2']);
    for (const m of run.measurements) {
      const label = `${m.system} at ${m.processes}`;
      expect(m.completed, label).toBe(200);
      expect(m.duplicates, label).toBe(0);
      expect(m.pids, label).toHaveLength(m.processes);
      // Every child is gone once the runner returns.
      expect(m.pids.filter(alive), label).toEqual([]);
      expect(m.rate, label).toBeGreaterThan(0);
      // Zero would mean a CPU figure was not read: the children work, Redis serves them.
      expect(m.nodeCpuUs, label).toBeGreaterThan(m.parentCpuUs);
      expect(m.redisCpuUs, label).toBeGreaterThan(0);
    }
    const report = scaleReport(run);
    expect(report).toContain('| worker processes | concurrency each | @jobs jobs/s | BullMQ jobs/s | @jobs / BullMQ |');
    expect(report).toMatch(/^\| 1 \| 4 \| [\d,]+\/s \| [\d,]+\/s \| \d+\.\d\dx \| \d+\.\d \+ \d+\.\d \| \d+\.\d \+ \d+\.\d \|$/m);
    expect(report).toMatch(/^\| 2 \| 2 \| [\d,]+\/s \| [\d,]+\/s \| \d+\.\d\dx \|/m);
    expect(report).toContain(`a machine with ${run.cores} cores`);
  }, 30_000);

  test('options that cannot run are usage errors, before anything is forked', async () => {
    await expect(runScale({ redisUrl: redis.url, processes: [3], concurrency: 4 })).rejects.toThrow(ScaleUsageError);
    await expect(runScale({ redisUrl: redis.url, processes: [1], systems: ['bee-queue'] })).rejects.toThrow(/unknown system "bee-queue"/);
    await expect(runScale({ redisUrl: redis.url, processes: [1], warmup: -1 })).rejects.toThrow(/--warmup must be a whole number from 0/);
    for (const args of [['--processes', '1,3', '--concurrency', '64'], ['--systems', '@jobs,Nope'], ['--n', 'many'], ['--warmup', 'x']]) {
      const failure = await promisify(execFile)(process.execPath, [CLI, ...args]).then(
        () => undefined,
        (error: { code?: number; stderr?: string }) => error,
      );
      expect(failure?.code, args.join(' ')).toBe(2);
      expect(failure?.stderr, args.join(' ')).toMatch(/^usage: pnpm bench:scale -- /m);
    }
  });

  test('a worker process that fails makes the wait reject, and kill leaves none behind', async () => {
    const children = new WorkerProcesses(2, { system: 'not-a-system', redisUrl: redis.url, queue: 'scale-failing', concurrency: 1, warmup: 0 }, () => undefined);
    try {
      await expect(children.ready()).rejects.toThrow(/worker process \d\/2 failed: .*usage: worker-process\.js/);
    } finally {
      await children.kill();
    }
    expect(children.pids.filter(alive)).toEqual([]);
  });
});
