import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startRedisServer, type RedisServer } from '@jobs/dev-redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { jobsAdapter } from '../src/adapters/jobs.ts';
import { processPreEnqueued } from '../src/scenarios.ts';
import { preEnqueue, runBareLoop } from '../src/floor/bare-loop.ts';
import { assertAllCompleted } from '../src/floor/completion-check.ts';
import { runFloor } from '../src/floor/floor-run.ts';
import { FLOOR_ROWS, floorTable } from '../src/floor/floor-table.ts';
import { WorkerCalls } from '../src/floor/worker-calls.ts';

const CLI = fileURLToPath(new URL('../dist/floor/cli.js', import.meta.url));

let server: RedisServer;
let admin: Redis;

beforeAll(async () => {
  server = await startRedisServer({ name: 'bench-floor-test' });
  admin = new Redis(server.url);
});

afterAll(async () => {
  admin.disconnect();
  await server.stop();
});

describe('the bare loop (tiny sizes; figures mean nothing, completion does)', () => {
  test('completes every pre-enqueued job once, with batched calls', async () => {
    await preEnqueue(server.url, 'floor-all', 300);
    const stats = await runBareLoop(server.url, 'floor-all', 300);
    expect(stats.completed).toBe(300);
    // One first claim, then batches of at most 32 completions: never one call per job.
    expect(stats.calls).toBeGreaterThanOrEqual(1 + Math.ceil(300 / 32));
    expect(stats.calls).toBeLessThan(300);
    await assertAllCompleted(server.url, 'floor-all', 300);
    const keys = new WorkerCalls('floor-all').keys;
    expect(await admin.llen(keys.completed)).toBe(300);
    // No lease is left (the index keeps only its anchor, scored +inf).
    expect(await admin.zcount(keys.leases, '-inf', '(+inf')).toBe(0);
  });

  test('fails loudly when the queue holds fewer jobs than it is told to complete', async () => {
    await preEnqueue(server.url, 'floor-short', 100);
    await expect(runBareLoop(server.url, 'floor-short', 150)).rejects.toThrow(/ran dry after 100 of 150/);
    await expect(assertAllCompleted(server.url, 'floor-short', 150)).rejects.toThrow(/completed_total 100 of 150/);
  });

  test('fails loudly on an error reply (the library missing)', async () => {
    await preEnqueue(server.url, 'floor-nolib', 10);
    await admin.function('FLUSH');
    await expect(runBareLoop(server.url, 'floor-nolib', 10)).rejects.toThrow(/Function not found/);
  });
});

describe('the bare loop sends what the real worker sends', () => {
  test('its first claim and its complete_and_claim calls match the worker\'s, argument for argument', async () => {
    const queue = 'floor-monitor';
    const seen: string[][] = [];
    const monitor = await admin.duplicate().monitor();
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === 'fcall' && (args[1]?.endsWith('_claim') ?? false)) seen.push(args);
    });
    const adapter = await jobsAdapter(server.url, queue);
    try {
      await processPreEnqueued(adapter, 200, 64);
    } finally {
      await adapter.close();
      monitor.disconnect();
    }
    const ours = new WorkerCalls(queue);
    const first = seen.find((args) => args[1] === ours.claim(64)[1]);
    const both = seen.filter((args) => args[1] === ours.completeAndClaim(1, [])[1]);
    expect(first, 'the worker\'s first claim').toBeDefined();
    expect(both.length, 'the worker\'s complete_and_claim calls').toBeGreaterThan(0);
    // The token base and the worker's id differ per call and per worker; all else is the same.
    const claimArgs = first as string[];
    const expected = ours.claim(64, claimArgs[15]);
    expected[21] = claimArgs[21] as string;
    expect(claimArgs.slice(1)).toEqual(expected.slice(1));
    for (const args of both) {
      const completions = args.slice(28);
      const mine = ours.completeAndClaim(Number(args[15]), completions, args[16]);
      mine[26] = args[26] as string;
      expect(args.slice(1)).toEqual(mine.slice(1));
      // Triples of id, token and the no-op handler's result.
      expect(completions.length % 3).toBe(0);
      for (let i = 2; i < completions.length; i += 3) expect(completions[i]).toBe('null');
    }
  });
});

describe('bench:floor', () => {
  test('one tiny repetition of both loops gives a table with both rows and the ratio', async () => {
    const run = await runFloor({ n: 300, reps: 1 });
    expect(run.firstPerRep).toEqual(['bare']);
    for (const side of [run.bare, run.worker]) {
      expect(side).toHaveLength(1);
      expect(side[0]?.rate).toBeGreaterThan(0);
      // Every job costs this process and the server some CPU: zero would mean it was not read.
      expect(side[0]?.nodeCpuUs).toBeGreaterThan(0);
      expect(side[0]?.redisCpuUs).toBeGreaterThan(0);
    }
    // The floor's calls: its first claim and one per batch of at most 32 completions, all FCALLs.
    const bareCalls = (run.bare[0]?.fcallsPerJob ?? 0) * 300;
    expect(bareCalls).toBeGreaterThanOrEqual(1 + Math.ceil(300 / 32));
    expect(bareCalls).toBeLessThan(300);
    expect(run.worker[0]?.fcallsPerJob).toBeGreaterThan(0);
    const table = floorTable(run);
    for (const row of Object.values(FLOOR_ROWS)) expect(table).toContain(`| ${row} |`);
    expect(table).toMatch(/\| bare socket, own RESP \(floor\) \| [\d,]+ \| \d+\.\d \| \d+\.\d \| \d+\.\d \|/);
    expect(table).toMatch(/\| worker \/ floor \| \d+\.\d\dx \| \d+\.\d\dx \| \d+\.\d\dx \| \d+\.\d\dx \|/);
  });

  test.each([['--n', 'lots'], ['--reps', '0'], ['--warmup', '-1'], ['--jobs', '5']])('%s %s: a usage line and exit code 2', (flag, value) => {
    const result = spawnSync(process.execPath, [CLI, flag, value], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^usage: bench:floor/);
  });
});
