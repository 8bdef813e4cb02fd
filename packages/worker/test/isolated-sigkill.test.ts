import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createProducer } from '@jobs/producer';
import { redisTest as test, waitFor } from '@jobs/testing';
import { describe, expect } from 'vitest';
import { createWorker, defineKinds } from '../src/index.ts';
import { processAlive } from './isolated-harness.ts';

const kinds = defineKinds({ work: { schema: { type: 'object', properties: { do: { type: 'string' } }, required: ['do'] } } });
const script = fileURLToPath(new URL('./fixtures/isolate/worker-process.mjs', import.meta.url));

describe('a SIGKILLed worker with isolated process children', () => {
  test('leaves no child alive, even children busy in a CPU loop, and its jobs are reclaimed and run again', async ({ redisUrl, redis, queueName }) => {
    const producer = createProducer({ redis, queue: queueName, kinds });
    const parent = spawn(process.execPath, [script], { env: { ...process.env, REDIS_URL: redisUrl, QUEUE: queueName, VISIBILITY_MS: '500' }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    parent.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise((resolve) => parent.once('exit', resolve));
    try {
      await waitFor(() => out.includes('ready'), { what: 'the worker process is up' });
      const ids = [await producer.enqueue('work', { do: 'spin-forever' }), await producer.enqueue('work', { do: 'hang' })];
      const pids = await waitFor(
        () => {
          const found = ids.map((id) => new RegExp(`started ${id} (\\d+)`).exec(out)?.[1]);
          return found.every((pid) => pid !== undefined) ? found.map(Number) : undefined;
        },
        { timeoutMs: 20_000, what: `both jobs started in children (got: ${out})` },
      );
      expect(new Set(pids).size).toBe(2);
      expect(pids.every(processAlive)).toBe(true);
      parent.kill('SIGKILL');
      await exited;
      // Neither child outlives its worker: the busy one is ended by its watchdog, the idle-looping one too.
      await waitFor(() => pids.every((pid) => !processAlive(pid)), { timeoutMs: 10_000, what: 'the children are gone' });
      const survivor = createWorker({ redis, queue: queueName, kinds, concurrency: 2, visibilityMs: 500, reclaimIntervalMs: 100, handlers: { work: ({ do: what }) => ({ rerun: what }) } });
      try {
        expect(await producer.waitForResult(ids[0] as string, { timeoutMs: 20_000 })).toEqual({ rerun: 'spin-forever' });
        expect(await producer.waitForResult(ids[1] as string, { timeoutMs: 20_000 })).toEqual({ rerun: 'hang' });
        for (const id of ids) expect((await producer.getJob(id))?.attempts).toBe(2);
      } finally {
        await survivor.close();
      }
    } finally {
      parent.kill('SIGKILL');
      await producer.close();
    }
  });
});
