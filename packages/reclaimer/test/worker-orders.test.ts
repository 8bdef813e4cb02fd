import { Queue, type WorkerInfo } from '@jobs/core';
import { redisTest as test, waitFor, within } from '@jobs/testing';
import { defineKinds } from '@jobs/worker';
import { describe, expect } from 'vitest';
import { startChildWorker, type ChildWorker } from '../../worker/test/child-worker.ts';
import { BIN, runCli } from './cli.ts';

// The kinds of the worker fixture (packages/worker/test/fixtures/worker-process.mjs).
const kinds = defineKinds({
  slow: { schema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] } },
  gated: { schema: { type: 'object' } },
});

/** A fixture worker process whose gated jobs run until released, heartbeating every 200 ms. */
function gatedWorker(redisUrl: string, queueName: string, id: string, concurrency: number): Promise<ChildWorker> {
  return startChildWorker({ REDIS_URL: redisUrl, QUEUE: queueName, WORKER_ID: id, CONCURRENCY: String(concurrency), HEARTBEAT_MS: '200', VISIBILITY_MS: '2000', GATED: '1', GRACE_MS: '5000' });
}

/** How many lines of `child`'s output start with `word `. */
function count(child: ChildWorker, word: string): number {
  return child.output().split('\n').filter((line) => line.startsWith(`${word} `)).length;
}

/** Resolves once `child` has printed `word` lines `n` times. */
function printed(child: ChildWorker, word: string, n: number): Promise<true> {
  return waitFor(() => count(child, word) >= n || undefined, { timeoutMs: 15_000, what: `${n} "${word}" lines (got: ${child.output().slice(-400)})` });
}

/** Resolves with the registry's entries once `check` accepts them. */
function registry(queue: Pick<Queue<unknown>, 'workers'>, check: (workers: WorkerInfo[]) => boolean, what: string): Promise<WorkerInfo[]> {
  return waitFor(async () => {
    const workers = await queue.workers();
    return check(workers) ? workers : undefined;
  }, { timeoutMs: 15_000, what });
}

async function stop(...children: ChildWorker[]): Promise<void> {
  for (const child of children) {
    child.send('release all');
    child.process.kill('SIGTERM');
  }
  await within(Promise.all(children.map((child) => child.exited)), 20_000, () => 'the workers to exit');
}

describe('jobsctl quiet, resume-workers and scale on worker processes', () => {
  test('quiet stops every live worker claiming while its running jobs finish; a worker started later takes the new jobs; resume-workers lets them claim again', async ({ redis, redisUrl, queueName }) => {
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const queue = new Queue({ redis, queue: queueName, kinds });
    const a = await gatedWorker(redisUrl, queueName, `${queueName}-a`, 2);
    const b = await gatedWorker(redisUrl, queueName, `${queueName}-b`, 2);
    let fresh: ChildWorker | undefined;
    try {
      await registry(queue, (workers) => workers.length === 2, 'both workers in the registry');
      const running = await Promise.all([1, 2].map(() => queue.enqueue('gated', {})));
      await waitFor(async () => (await Promise.all(running.map((id) => queue.getJob(id)))).every((job) => job?.status === 'processing') || undefined, { what: 'the first jobs to run' });

      const quiet = await runCli(BIN.jobsctl, ['quiet', '--json'], env);
      expect(quiet.code).toBe(0);
      expect(JSON.parse(quiet.stdout)).toEqual({ queue: queueName, op: 'quiet', told: [`${queueName}-a`, `${queueName}-b`] });
      await registry(queue, (workers) => workers.length === 2 && workers.every((worker) => worker.quiet), 'both workers quiet in the registry');
      const table = await runCli(BIN.jobsctl, ['workers'], env);
      expect(table.stdout.split('\n').filter((line) => /\s\d\/2\s+yes\s/.test(line))).toHaveLength(2);

      const waiting = await Promise.all([1, 2, 3].map(() => queue.enqueue('gated', {})));
      // The running jobs finish and complete; nothing new starts on the quiet workers.
      a.send('release all');
      b.send('release all');
      await waitFor(async () => (await Promise.all(running.map((id) => queue.getJob(id)))).every((job) => job?.status === 'completed') || undefined, { what: 'the running jobs to complete' });
      expect(count(a, 'aborted') + count(b, 'aborted')).toBe(0);
      expect((await Promise.all(waiting.map((id) => queue.getJob(id)))).map((job) => job?.status)).toEqual(['pending', 'pending', 'pending']);
      expect(count(a, 'started') + count(b, 'started')).toBe(2);

      // A worker started afterwards was not told: it takes them.
      fresh = await gatedWorker(redisUrl, queueName, `${queueName}-fresh`, 3);
      await printed(fresh, 'started', 3);
      fresh.send('release all');
      await waitFor(async () => (await Promise.all(waiting.map((id) => queue.getJob(id)))).every((job) => job?.status === 'completed') || undefined, { what: 'the fresh worker to complete them' });
      expect((await Promise.all(waiting.map((id) => queue.getJob(id)))).map((job) => (job?.result as { pid: number }).pid)).toEqual(Array(3).fill(fresh.process.pid));
      await stop(fresh);
      fresh = undefined;

      const resume = await runCli(BIN.jobsctl, ['resume-workers'], env);
      expect(resume.code).toBe(0);
      expect(resume.stdout).toContain('told 2 worker(s)');
      await registry(queue, (workers) => workers.length === 2 && workers.every((worker) => !worker.quiet), 'both workers claiming again');
      const later = await Promise.all([1, 2].map(() => queue.enqueue('gated', {})));
      await waitFor(() => count(a, 'started') + count(b, 'started') >= 4 || undefined, { what: 'the old workers to claim again' });
      a.send('release all');
      b.send('release all');
      const pids = (await waitFor(async () => {
        const jobs = await Promise.all(later.map((id) => queue.getJob(id)));
        return jobs.every((job) => job?.status === 'completed') ? jobs : undefined;
      }, { what: 'the later jobs to complete' })).map((job) => (job?.result as { pid: number }).pid);
      for (const pid of pids) expect([a.process.pid, b.process.pid]).toContain(pid);
    } finally {
      await stop(a, b, ...(fresh ? [fresh] : []));
      await queue.close();
    }
  });

  test('quiet --worker tells that worker alone; a worker not alive is told nothing (exit 1); bad arguments exit 2', async ({ redis, redisUrl, queueName }) => {
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const queue = new Queue({ redis, queue: queueName, kinds });
    const a = await gatedWorker(redisUrl, queueName, `${queueName}-a`, 1);
    const b = await gatedWorker(redisUrl, queueName, `${queueName}-b`, 1);
    try {
      await registry(queue, (workers) => workers.length === 2, 'both workers in the registry');
      const one = await runCli(BIN.jobsctl, ['quiet', '--worker', `${queueName}-a`], env);
      expect(one).toMatchObject({ code: 0 });
      expect(one.stdout).toBe(`told 1 worker(s) of ${queueName}: each claims no new jobs (running jobs finish)\n${queueName}-a\n`);
      const listed = await registry(queue, (workers) => workers.some((worker) => worker.quiet), 'worker a quiet');
      expect(listed.map((worker) => [worker.id, worker.quiet])).toEqual([[`${queueName}-a`, true], [`${queueName}-b`, false]]);
      // b claims what comes.
      const id = await queue.enqueue('gated', {});
      await printed(b, 'started', 1);
      expect(count(a, 'started')).toBe(0);
      b.send('release all');
      await waitFor(async () => (await queue.getJob(id))?.status === 'completed' || undefined, { what: 'the job on b' });

      const nobody = await runCli(BIN.jobsctl, ['scale', '--concurrency', '3', '--worker', 'nobody', '--json'], env);
      expect(nobody.code).toBe(1);
      expect(JSON.parse(nobody.stderr)).toMatchObject({ error: 'no_workers', told: [] });
      // The orders given are in the queue's audit trail, as the other acting commands are.
      const trail = await queue.auditTrail();
      expect(trail.entries.map((entry) => [entry.action, entry.target?.id, entry.count])).toEqual([['scale-workers:3', 'nobody', 0], ['quiet-workers', `${queueName}-a`, 1]]);
      const badNumber = await runCli(BIN.jobsctl, ['scale', '--concurrency', '0'], env);
      expect(badNumber.code).toBe(2);
      expect(badNumber.stderr).toContain('--concurrency must be a whole number from 1 to 10000');
      const noNumber = await runCli(BIN.jobsctl, ['scale'], env);
      expect(noNumber.code).toBe(2);
      const badId = await runCli(BIN.jobsctl, ['quiet', '--worker', 'has space'], env);
      expect(badId.code).toBe(2);
      expect(badId.stdout + badId.stderr).toContain('--worker');
      expect((await runCli(BIN.jobsctl, ['quiet'], { REDIS_URL: redisUrl })).code).toBe(2);
      expect((await queue.workers()).map((worker) => worker.concurrency)).toEqual([1, 1]);
    } finally {
      await stop(a, b);
      await queue.close();
    }
  });

  test('scale from 1 to 4 runs four jobs at once; scaled down to 1 while four run, none is aborted and then one runs at a time', async ({ redis, redisUrl, queueName }) => {
    const env = { REDIS_URL: redisUrl, JOBS_QUEUE: queueName };
    const queue = new Queue({ redis, queue: queueName, kinds });
    const w = await gatedWorker(redisUrl, queueName, `${queueName}-w`, 1);
    try {
      await registry(queue, (workers) => workers.length === 1, 'the worker in the registry');
      const ids = await Promise.all(Array.from({ length: 7 }, () => queue.enqueue('gated', {})));
      await printed(w, 'started', 1);
      const up = await runCli(BIN.jobsctl, ['scale', '--concurrency', '4', '--json'], env);
      expect(up.code).toBe(0);
      expect(JSON.parse(up.stdout)).toEqual({ queue: queueName, op: 'scale', told: [`${queueName}-w`], concurrency: 4 });
      // Four started and none released: four at once.
      await printed(w, 'started', 4);
      await registry(queue, (workers) => workers[0]?.concurrency === 4 && workers[0].runningCount === 4, 'four running of four in the registry');
      expect(count(w, 'done')).toBe(0);

      expect((await runCli(BIN.jobsctl, ['scale', '--concurrency', '1'], env)).code).toBe(0);
      await registry(queue, (workers) => workers[0]?.concurrency === 1, 'the concurrency of 1 in the registry');
      w.send('release all');
      await printed(w, 'done', 4);
      await printed(w, 'started', 5);
      expect(count(w, 'aborted')).toBe(0);
      // One runs; with no free slot the worker has no claim in flight, so the rest wait in pending.
      for (let round = 5; round <= 7; round += 1) {
        await printed(w, 'started', round);
        const stats = await queue.stats();
        expect([stats.processingDepth, stats.pendingDepth]).toEqual([1, 7 - round]);
        expect(count(w, 'started')).toBe(round);
        w.send('release all');
        await printed(w, 'done', round);
      }
      await waitFor(async () => (await Promise.all(ids.map((id) => queue.getJob(id)))).every((job) => job?.status === 'completed') || undefined, { what: 'every job to complete' });
    } finally {
      await stop(w);
      await queue.close();
    }
  });
});
