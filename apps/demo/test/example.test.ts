import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { redisTest as test, uniqueQueueName } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { runExample } from '../src/run-example.ts';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

function runMain(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the runnable example', () => {
  test('enqueues, works and completes every job, retries, reclaims and dead-letters as designed', async ({ redis, queueName }) => {
    const lines: string[] = [];
    const stats = await runExample({ redis, queue: queueName, jobs: 40, workers: 3, log: (line) => lines.push(line) });
    expect(stats.enqueuedTotal).toBe(40);
    expect(stats.completedTotal).toBe(39);
    expect(stats.failedTotal).toBe(1);
    expect(stats.retriedTotal).toBe(2);
    expect(stats.reclaimedTotal).toBe(1);
    expect(stats).toMatchObject({ pendingDepth: 0, processingDepth: 0, delayedDepth: 0 });
    expect(lines.join('\n')).toMatch(/rejected before anything was written: invalid payload for kind "email"/);
    expect(lines.join('\n')).toMatch(/dead-lettered invoice \w+: card declined for cus_8/);
    expect(lines.join('\n')).toMatch(/the crashed claim \w+ was reclaimed and then completed/);
  });

  test('the built command uses REDIS_URL when given, and prints the stats', async ({ redisUrl }) => {
    const { code, out } = await runMain(['--jobs', '12', '--queue', uniqueQueueName('demo')], { ...process.env, REDIS_URL: redisUrl });
    expect(out).toMatch(/done: 11 completed, 1 failed/);
    expect(out).not.toMatch(/private redis-server/);
    expect(code).toBe(0);
  });

  test('without REDIS_URL it starts a private redis-server and stops it on exit', async () => {
    const env = { ...process.env };
    delete env.REDIS_URL;
    const { code, out } = await runMain(['--jobs', '8'], env);
    expect(code).toBe(0);
    const pid = Number(/started a private redis-server on 127\.0\.0\.1:\d+ \(pid (\d+)\)/.exec(out)?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(out).toMatch(/stopped the private redis-server/);
    expect(isAlive(pid)).toBe(false);
  });

  test('bad flags exit with code 2 and the usage', async () => {
    const { code, out } = await runMain(['--jobs', 'many'], process.env);
    expect(code).toBe(2);
    expect(out).toMatch(/--jobs must be 1 to 10000/);
    expect(existsSync(main)).toBe(true);
  });
});
